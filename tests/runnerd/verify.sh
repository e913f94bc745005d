#!/bin/sh
# verify (runner-verify.c + airlox-probe) in network modes none, allow and
# full: every probe reports and passes (or is skipped where the mode makes
# it moot), the report names no host path, and nothing is left behind.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local
VT=$top_builddir/tests/runnerd/verify-test
command -v openssl >/dev/null || skip_all "no openssl"

mkdir -p "$T/state" "$T/work" && chmod 700 "$T/state" || exit 99
# A home of our own: the home canary checked at the end is ours, not one
# of a runner that another test (run at the same time) is verifying.
mkdir -p "$T/home" && HOME=$T/home && export HOME || exit 99
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" \
    -out "$T/cert.pem" -days 1 -subj /CN=allowed.test >/dev/null 2>&1 ||
    { echo "Bail out! no test cert"; exit 99; }
openssl s_server -accept 127.0.0.1:0 -cert "$T/cert.pem" -key "$T/key.pem" \
    -www -naccept 30 > "$T/tls.out" 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null; cleanup' EXIT INT TERM
wait_for grep -q '^ACCEPT' "$T/tls.out"
SPORT=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "$T/tls.out")
[ -n "$SPORT" ] || { echo "Bail out! s_server"; exit 99; }

# vrun MODE [options]: the report in $OUTV, exit status in $RCV
vrun() {
	m=$1; shift
	OUTV=$(timeout 300 "$VT" -m "$m" -s "$T/state" -w "$T/work" "$@" 2>&1)
	RCV=$?
	ALLOUT="$ALLOUT$OUTV"
}

# expect RESULT PROBE...: each probe has this result
expect() {
	want=$1; shift
	for p in "$@"; do
		line=$(printf '%s\n' "$OUTV" | grep "^[A-Z]* $p: " | head -1)
		case $line in
		"$want $p: "*) ok 0 "$MODE: $p $want" ;;
		*) ok 1 "$MODE: $p $want"; echo "#   got: ${line:-nothing}" ;;
		esac
	done
}

COMMON="fds env_canary write_outside landlock canary_files mountinfo dev_nodes
    capabilities no_new_privs seccomp userns syscall32 tiocsti"
NET="net_only_lo net_no_route direct_ip direct_domain dns host_loopback"
[ "$(uname -m)" = x86_64 ] || COMMON=$(echo "$COMMON" | sed 's/syscall32//')

MODE=none
vrun none
is "$RCV" 0 "none: verify exits 0 (no FAIL)"
expect PASS $COMMON $NET proxy_absent
expect SKIP proxy_bypass
lacks "$OUTV" "FAIL" "none: no FAIL line"

MODE=allow
vrun allow -A allowed.test,.example.org -H "allowed.test=+127.0.0.1:$SPORT"
is "$RCV" 0 "allow: verify exits 0 (no FAIL)"
expect PASS $COMMON $NET proxy_env proxy_allowed proxy_denied \
    proxy_ip_literal proxy_metadata proxy_sni proxy_bypass
report=$(printf '%s\n' "$OUTV" | sed -n 's/^report //p')
printf %s "$report" | "$PY" -c 'import json, sys
r = json.load(sys.stdin)
assert r["fail"] == 0 and r["network"] == "allow" and r["sandbox"] == "local"
assert all(set(p) == {"name", "result", "reason"} for p in r["probes"])
assert len(r["probes"]) == r["pass"] + r["skip"]'
ok $? "allow: the report JSON has every probe with name, result, reason"
lacks "$report" "$T" "the report names no host path"
has "$(cat "$T/state/egress/denied.log")" '"job":"verify"' \
    "verify's refused attempts are in denied.log"
has "$(cat "$T/state/egress/denied.log")" '"job":"verify","host":"allowed.test","port":443,"method":"CONNECT","reason":"sni_mismatch","sni":"airlox-verify-denied.invalid"' \
    "verify's fronting attempt is in denied.log"

MODE=offline
vrun allow -A offline.test -H "offline.test=+127.0.0.1:1"
is "$RCV" 0 "offline: verify exits 0"
expect SKIP proxy_allowed proxy_sni
expect PASS proxy_denied proxy_ip_literal proxy_metadata proxy_bypass

# A kernel without the 32-bit syscall entry (IA32 emulation off or not
# built): `int $0x80` faults with SIGSEGV before any filter sees it, inside
# the sandbox and outside. This kernel has the entry, so -K no-ia32 makes
# the probe execute `int $0x81` instead, in the runner's baseline and in
# the sandbox: the same fault (no user gate for the vector, SIGSEGV) that
# `int $0x80` takes on such a kernel. verify must not fail for it.
if [ "$(uname -m)" = x86_64 ]; then
	MODE=no-ia32
	vrun none -K no-ia32
	is "$RCV" 0 "no-ia32: verify exits 0 on a kernel without IA32"
	expect PASS syscall32
	has "$OUTV" "PASS syscall32: the kernel has no 32-bit syscall entry: int \$0x80 gives SIGSEGV outside the sandbox too" \
	    "no-ia32: the reason names the kernel's own refusal"
	# The baseline is what lets it pass: the probe alone, told that the
	# kernel lets int $0x80 through (or told nothing), fails the same fault.
	P=$top_builddir/runnerd/airlox-probe
	has "$("$P" -T no-ia32 -b syscall32=returned 2>&1)" \
	    "FAIL syscall32 int \$0x80: SIGSEGV (outside the sandbox: returned)" \
	    "a fault where the kernel has the entry is a FAIL"
	has "$("$P" -T no-ia32 2>&1)" \
	    "FAIL syscall32 int \$0x80: SIGSEGV (outside the sandbox: not measured)" \
	    "a fault without a baseline is a FAIL"
	has "$("$P" -B 2>&1)" "BASE syscall32 $(host_has_ia32 && echo returned || echo SIGSEGV)" \
	    "the baseline measures this kernel's own answer"
else
	skip "no-ia32" "no 32-bit ABI on $(uname -m)"
fi

MODE=full
vrun full
is "$RCV" 0 "full: verify exits 0"
expect SKIP $NET proxy_bypass
expect PASS $COMMON

# The runner as an unprivileged user (user namespace of its own uid).
AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null &&
    $AS_USER test -x "$VT"; then
	mkdir -p "$T/ustate" "$T/uwork" "$T/uhome" &&
	    chown 65534:65534 "$T/ustate" "$T/uwork" "$T/uhome" &&
	    chmod 700 "$T/ustate"
	OUTV=$(HOME=$T/uhome timeout 300 $AS_USER "$VT" -m allow -A allowed.test \
	    -H "allowed.test=+127.0.0.1:$SPORT" -s "$T/ustate" -w "$T/uwork" 2>&1)
	RCV=$?
	ALLOUT="$ALLOUT$OUTV"
	MODE=user
	is "$RCV" 0 "user: verify exits 0 as an unprivileged runner"
	expect PASS $COMMON $NET proxy_allowed proxy_denied proxy_ip_literal \
	    proxy_metadata proxy_sni proxy_bypass
	is "$(stat -c %U "$T/ustate/egress/denied.log")" nobody \
	    "user: the proxy's log belongs to the runner's user"
else
	skip "an unprivileged runner" "not root or no setpriv: no unprivileged run"
fi

is "$(ls "$T/work" | wc -l)/$(ls "$T/state" | grep -c canary)" 0/0 \
    "verify leaves no folder and no canary behind"
is "$(ls -a "$HOME" 2>/dev/null | grep -c airlox-verify-canary)" 0 \
    "no canary left in the home folder"

lacks "$ALLOUT" "Sanitizer" "no sanitizer report from verify or the proxy"
lacks "$ALLOUT" "runtime error" "no undefined behaviour reported"

done_testing
