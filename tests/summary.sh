#!/bin/sh
# summary.sh: add up test results from automake build directories and TAP files, and print
# one line, "N passed, N failed, N skipped".
#
#	tests/summary.sh [-t FILE.tap]... [BUILDDIR]...
#
# A BUILDDIR contributes the totals in its test-suite.log (written by `make check`), in
# automake's own terms: PASS and XFAIL count as passed; FAIL, XPASS and ERROR as failed;
# SKIP as skipped. A build directory without test-suite.log counts as one failure, since
# its tests never ran. Each TAP file (tests/fuzz/run.sh output, or the "not ok" lines
# scripts/test.sh writes for a step that failed before any test ran) contributes its
# "ok", "not ok" and "# SKIP" lines.
#
# Exit status: 0 when nothing failed, 1 otherwise, 2 on a usage error.

set -u

passed=0
failed=0
skipped=0

# The counts in test-suite.log's header, as "PASS SKIP XFAIL FAIL XPASS ERROR".
suite_counts()
{
	awk '
		/^# (PASS|SKIP|XFAIL|FAIL|XPASS|ERROR): *[0-9]+$/ {
			key = $2; sub(/:$/, "", key); n[key] = $3; seen++
			if (key == "ERROR") exit
		}
		END {
			if (seen == 0) exit 1
			printf "%d %d %d %d %d %d\n", n["PASS"], n["SKIP"], n["XFAIL"],
			    n["FAIL"], n["XPASS"], n["ERROR"]
		}' "$1"
}

# The counts of a TAP stream, as "PASSED FAILED SKIPPED".
tap_counts()
{
	awk '
		/^not ok/ { f++; next }
		/^ok/ && /# *[Ss][Kk][Ii][Pp]/ { s++; next }
		/^ok/ { p++; next }
		/^1\.\.0 *# *[Ss][Kk][Ii][Pp]/ { s++ }
		END { printf "%d %d %d\n", p, f, s }' "$1"
}

# Add the counts of a TAP file.
add_tap()
{
	# shellcheck disable=SC2046 # three numbers, split on purpose
	set -- $(tap_counts "$1")
	passed=$((passed + $1))
	failed=$((failed + $2))
	skipped=$((skipped + $3))
}

# Add the totals of a build directory's test-suite.log.
add_builddir()
{
	if [ -f "$1/test-suite.log" ] && counts=$(suite_counts "$1/test-suite.log"); then
		# shellcheck disable=SC2086 # six numbers, split on purpose
		set -- $counts
		passed=$((passed + $1 + $3))
		failed=$((failed + $4 + $5 + $6))
		skipped=$((skipped + $2))
	else
		echo "summary.sh: $1: no test results (no test-suite.log)" >&2
		failed=$((failed + 1))
	fi
}

while [ $# -gt 0 ]; do
	case $1 in
	-t)
		[ $# -ge 2 ] || { echo "summary.sh: -t needs a file" >&2; exit 2; }
		[ -f "$2" ] || { echo "summary.sh: $2: no such file" >&2; exit 2; }
		add_tap "$2"
		shift 2
		;;
	-h | --help)
		sed -n '2,14s/^# \{0,1\}//p' "$0"
		exit 0
		;;
	-*)
		echo "summary.sh: unknown option: $1" >&2
		exit 2
		;;
	*)
		add_builddir "$1"
		shift
		;;
	esac
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
