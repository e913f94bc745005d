#!/bin/sh
# driver.sh: the log driver of `make check` (LOG_DRIVER in Makefile.am).
#
#	driver.sh SHELL TAP-DRIVER DRIVER-ARGS... -- TEST [ARGS...]
#
# Runs automake's TAP driver with its arguments as the harness gave them,
# then prints one line for the test file as it finishes, such as
#
#	done: tests/relayd/api.sh: 57 passed, 0 failed, 0 skipped (12 s)
#
# With many tests running at once and their per-point PASS lines left out
# (scripts/test.sh does), that line is the run's progress. The exit status
# is the TAP driver's.

sh=$1
driver=$2
shift 2

name=
trs=
prev=
for a in "$@"; do
	case $prev in
	--test-name) name=$a ;;
	--trs-file) trs=$a ;;
	--) break ;;
	esac
	prev=$a
done

start=$(date +%s)
"$sh" "$driver" "$@"
rc=$?
end=$(date +%s)

if [ -n "$trs" ] && [ -f "$trs" ]; then
	n_pass=$(grep -c -E '^:test-result: (PASS|XFAIL)' "$trs")
	n_fail=$(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$trs")
	n_skip=$(grep -c -E '^:test-result: SKIP' "$trs")
	echo "done: ${name:-?}: $n_pass passed, $n_fail failed, $n_skip skipped" \
	    "($((end - start)) s)"
fi
exit $rc
