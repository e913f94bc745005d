#!/bin/sh
# No probe passes vacuously: in the test-only weakened build (verify-weak,
# weak-shim: the sandbox, proxy and shim compiled again with
# -DSANDBOX_TEST_WEAKEN), switching one protection off makes exactly the
# probes that guard it FAIL.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local
VW=$top_builddir/tests/runnerd/verify-weak
WSHIM=$top_builddir/tests/runnerd/weak-shim

# The state dir must be outside /tmp (the sandbox's /tmp is its own), and
# the build tree itself may be under /tmp (CI's clone can be): /var/tmp.
SD=$(mktemp -d /var/tmp/airlox-weak-state.XXXXXX) || exit 99
mkdir -p "$T/work" && chmod 700 "$SD" || exit 99
trap 'rm -rf "$SD"; cleanup' EXIT INT TERM

# weak BITS MODE PROBE...: with BITS off, each PROBE fails (with WMAP,
# the test resolver's map: allowed.test at a TLS server of ours)
weak() {
	bits=$1 mode=$2; shift 2
	out=$(timeout 300 "$VW" -m "$mode" -A allowed.test -S "$WSHIM" \
	    ${WMAP:+-H "$WMAP"} -W "$bits" -D "$SD" -s "$SD" -w "$T/work" 2>&1)
	rc=$?
	if [ "$bits" = 0 ]; then
		is "$rc" 0 "weak build, nothing off: every probe passes"
		lacks "$out" "FAIL" "weak build, nothing off: no FAIL"
		return
	fi
	[ "$rc" -ge "$#" ]; ok $? "weaken $bits: verify exits with the FAIL count ($rc)"
	for p in "$@"; do
		has "$out" "FAIL $p: " "weaken $bits: $p fails"
	done
	printf '%s\n' "$out" | grep '^FAIL' | grep -q 'did not start\|no report'
	[ $? -ne 0 ]; ok $? "weaken $bits: the sandbox ran and the probe reported"
}

weak 0 allow
weak 0x001 allow net_only_lo net_no_route dns direct_domain host_loopback proxy_bypass
weak 0x002 allow write_outside
weak 0x200 allow landlock
weak 0x004 none mountinfo canary_files
weak 0x008 none dev_nodes
weak 0x010 none capabilities
weak 0x020 none seccomp userns tiocsti
weak 0x220 none no_new_privs
weak 0x040 none fds
weak 0x080 none env_canary
# The proxy's checks off, with the allowed name reachable: a ClientHello
# for another name then reaches the TLS server (proxy_sni fails too).
if command -v openssl >/dev/null &&
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" \
    -out "$T/cert.pem" -days 1 -subj /CN=allowed.test >/dev/null 2>&1; then
	openssl s_server -accept 127.0.0.1:0 -cert "$T/cert.pem" \
	    -key "$T/key.pem" -www -naccept 20 > "$T/tls.out" 2>&1 &
	SPID=$!
	trap 'kill $SPID 2>/dev/null; rm -rf "$SD"; cleanup' EXIT INT TERM
	wait_for grep -q '^ACCEPT' "$T/tls.out"
	SPORT=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "$T/tls.out")
fi
if [ -n "${SPORT:-}" ]; then
	WMAP="allowed.test=+127.0.0.1:$SPORT" weak 0 allow
	WMAP="allowed.test=+127.0.0.1:$SPORT" weak 0x100 allow proxy_denied \
	    proxy_ip_literal proxy_metadata proxy_sni
else
	weak 0x100 allow proxy_denied proxy_ip_literal proxy_metadata
	skip "weaken 0x100: proxy_sni fails" "no openssl s_server to tunnel to"
fi
if host_has_ia32; then
	weak 0x020 none syscall32
else
	skip "weaken 0x020: syscall32 fails" "no 32-bit syscall entry in this kernel: no filter is needed to stop int \$0x80"
fi
# direct_ip: with the host's network, 1.1.1.1 must not be unreachable
out=$(timeout 300 "$VW" -m none -S "$WSHIM" -W 0x001 -s "$SD" -w "$T/work" 2>&1)
case $out in
*"FAIL direct_ip: "*) ok 0 "weaken 0x001: direct_ip fails" ;;
*"PASS direct_ip: "*"unreachable"*)
	skip "weaken 0x001: direct_ip fails" "this host has no route out either" ;;
*) ok 1 "weaken 0x001: direct_ip fails" ;;
esac

done_testing
