# lib.sh: what the sandbox tests share beyond tests/lib.sh (sourced; TAP
# output).
#
# Provides: SBRUN, SHIM, PROBE, WS and OUT (fresh per run_job), run_job
# [sandbox-run options] -- command: runs it and stores the JSON outcome in
# $RES; jget KEY: a member of $RES. Files named in CLEANUP_FILES (outside
# $T) are removed at exit.

. "${top_srcdir:-.}/tests/lib.sh"
SBRUN=$top_builddir/tests/runnerd/sandbox-run
SHIM=$top_builddir/runnerd/airlox-shim
PROBE=$top_builddir/tests/runnerd/probe
PY=/usr/bin/python3

# The jobs run as other uids: they must reach their folders under $T.
chmod 755 "$T"
CLEANUP_FILES=
CLEANUP_HOOK=sb_cleanup
sb_cleanup() {
	for f in $CLEANUP_FILES; do rm -f "$f"; done
}

tap_on_fail() {	# after a failed check: the last job's result
	[ -n "$RES" ] && echo "#   last result: $(printf %s "$RES" | cut -c1-600)"
	return 0
}

need_local() {
	[ "$(uname -s)" = Linux ] || skip_all "not Linux"
	case $(uname -m) in x86_64|aarch64) ;; *) skip_all "arch $(uname -m)";; esac
	[ -x "$PY" ] || skip_all "no $PY to read JSON"
	ENF=$("$SBRUN" -E -b local 2>&1)
	case $ENF in *"local NOT enforced"*) skip_all "no user namespaces";; esac
}

# 0 when this kernel has the 32-bit syscall entry: `int $0x80` returns
# outside any sandbox (a kernel without IA32 emulation faults it, SIGSEGV).
host_has_ia32() {
	[ "$(uname -m)" = x86_64 ] && "$PROBE" int80 2>/dev/null | grep -q returned
}

# A fresh workspace and out dir, with the probe in the workspace.
new_dirs() {
	WS=$(mktemp -d "$T/ws.XXXXXX") && OUT=$(mktemp -d "$T/out.XXXXXX") &&
	    cp "$PROBE" "$WS/probe" && chmod 755 "$WS" "$OUT" "$WS/probe"
}

run_job() {
	new_dirs
	[ -n "$PREP" ] && eval "$PREP"
	RES=$(timeout 120 "$SBRUN" -b "${BACKEND:-local}" -s "$SHIM" \
	    -w "$WS" -o "$OUT" "$@")
}

jget() {
	printf %s "$RES" | "$PY" -c 'import json,sys
v = json.load(sys.stdin).get(sys.argv[1])
print(json.dumps(v) if isinstance(v, bool) or v is None else v, end="")' "$1"
}
