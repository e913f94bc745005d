# tap.sh: the TAP part of the shell tests' library (sourced by tests/lib.sh,
# POSIX sh; tests/runnerd/vocabulary.sh uses it alone). ok/is/like/has/
# lacks/todo/skip print one result line each; skip_all and need skip a
# whole test; tap_plan prints the plan and fails when a check failed.

tap_n=0
tap_failed=0

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

need() {	# need COMMAND...: skip the test unless each is installed
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "needs $c"
	done
}

# ok STATUS DESCRIPTION (STATUS 0 passes). A failure also runs the
# test library's tap_on_fail, when it defines one (to show its context).
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
		if command -v tap_on_fail >/dev/null 2>&1; then
			tap_on_fail
		fi
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

has() {	# has TEXT STRING DESCRIPTION: STRING is in TEXT, as it is
	case $1 in
	*"$2"*) ok 0 "$3" ;;
	*)	ok 1 "$3"
		echo "#   '$2' not in: $(printf %s "$1" | head -c 400)" ;;
	esac
}

lacks() {	# lacks TEXT STRING DESCRIPTION: STRING is not in TEXT
	case $1 in
	*"$2"*) ok 1 "$3"
		echo "#   '$2' found" ;;
	*)	ok 0 "$3" ;;
	esac
}

# todo STATUS DESCRIPTION REASON: a known defect; reported as TODO (an
# expected failure), never counted as a failure. When it passes the
# harness reports XPASS (a failure): the defect is fixed, drop the todo.
todo() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2 # TODO $3"
	else
		echo "not ok $tap_n - $2 # TODO $3"
	fi
}

skip() {	# skip DESCRIPTION REASON
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

diag() {
	echo "# $*"
}

# tap_plan: print the plan; return 1 (after saying how many) when a check
# failed, so a test's done_testing can add what helps and exit.
tap_plan() {
	echo "1..$tap_n"
	[ "$tap_failed" -eq 0 ] && return 0
	echo "# $tap_failed of $tap_n failed"
	return 1
}
