# lib.sh: shared by the packaging tests (sourced, POSIX sh): a private
# directory $T removed at exit, TAP helpers, and the build tree's programs.
# shellcheck disable=SC2034 # variables for the tests that source this

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
RELAYD=$top_builddir/relayd/airlox-relayd
RUNNERD=$top_builddir/runnerd/airlox-runnerd
AIRLOX=$top_builddir/client/airlox
T=$(mktemp -d "${TMPDIR:-/tmp}/packaging.XXXXXX") || exit 99
tap_n=0
tap_failed=0
CLEANUP_HOOK=:

pack_cleanup() {
	$CLEANUP_HOOK
	rm -rf "$T"
}
trap pack_cleanup EXIT
trap 'exit 1' INT TERM

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "needs $c"
	done
}

ok() {	# ok STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

is() {	# is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got '$1', want '$2'"
	fi
}

like() {	# like TEXT PATTERN(grep -E) DESCRIPTION
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		printf '%s\n' "$1" | head -n 20 | sed 's/^/#   /'
		echo "#   does not match /$2/"
	fi
}

skip() {	# skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ] || { echo "# $tap_failed of $tap_n failed"; exit 1; }
	exit 0
}

# wait_for SECONDS CMD...: retry CMD every 0.2 s until it succeeds.
wait_for() {
	_w=$(($1 * 5))
	shift
	while [ "$_w" -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		_w=$((_w - 1))
		sleep 0.2
	done
	return 1
}

# A staged `make install DESTDIR=$T/stage` of this build tree; sets PREFIX
# (the configured prefix) and STAGE (where it landed).
stage_install() {
	PREFIX=$(sed -n 's/^prefix = //p' "$top_builddir/Makefile")
	STAGE=$T/stage
	make -C "$top_builddir" -s install DESTDIR="$STAGE" >"$T/install.log" 2>&1
}
