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
CLEANUP_HOOK=:

pack_cleanup() {
	$CLEANUP_HOOK
	rm -rf "$T"
}
trap pack_cleanup EXIT
trap 'exit 1' INT TERM

. "$top_srcdir/tests/tap.sh"

done_testing() {
	tap_plan
	exit $?
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
