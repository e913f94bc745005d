# lib.sh: shared setup of the sandbox tests (sourced; TAP output).
#
# Provides: SBRUN, SHIM, PROBE, $T (temp dir, removed on exit), WS and OUT
# (fresh per run_job), run_job [sandbox-run options] -- command: runs it
# and stores the JSON outcome in $RES; jget KEY: a member of $RES.

: "${top_builddir:=.}"
SBRUN=$top_builddir/tests/runnerd/sandbox-run
SHIM=$top_builddir/runnerd/airlox-shim
PROBE=$top_builddir/tests/runnerd/probe
PY=/usr/bin/python3
n=0
failed=0

T=$(mktemp -d "${TMPDIR:-/tmp}/airlox-sbtest.XXXXXX") || exit 99
chmod 755 "$T"
cleanup() {
	for f in $CLEANUP_FILES; do rm -f "$f"; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

ok() {		# ok COND-STATUS description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
		[ -n "$RES" ] && echo "#   last result: $(printf %s "$RES" | cut -c1-600)"
	fi
}

done_testing() {
	echo "1..$n"
	[ "$failed" -eq 0 ]
}

need_local() {
	[ "$(uname -s)" = Linux ] || skip_all "not Linux"
	case $(uname -m) in x86_64|aarch64) ;; *) skip_all "arch $(uname -m)";; esac
	[ -x "$PY" ] || skip_all "no $PY to read JSON"
	ENF=$("$SBRUN" -E -b local 2>&1)
	case $ENF in *"local NOT enforced"*) skip_all "no user namespaces";; esac
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

# ok_eq GOT WANT description
ok_eq() {
	[ "$1" = "$2" ]; r=$?
	ok $r "$3"
	[ $r -eq 0 ] || echo "#   got '$1', want '$2'"
}

# ok_has TEXT NEEDLE description
ok_has() {
	case $1 in *"$2"*) ok 0 "$3";; *) ok 1 "$3"; echo "#   '$2' not in: $(printf %s "$1" | head -c 400)";; esac
}

ok_lacks() {
	case $1 in *"$2"*) ok 1 "$3"; echo "#   '$2' found";; *) ok 0 "$3";; esac
}
