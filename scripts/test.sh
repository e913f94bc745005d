#!/bin/bash
# test.sh: the whole airlox test run, on Debian 12 from a fresh clone (CI runs exactly this).
#
#	scripts/test.sh [--quick] [--no-san] [--no-fuzz] [--no-distcheck] [--clean]
#
# Steps, each in its own out-of-tree build directory in the source tree:
#	1. scripts/install-deps.sh, then autoreconf -fi when configure is
#	   missing or older than configure.ac or a Makefile.am fragment
#	2. build/       configure --enable-werror; make; make check
#	3. build-san/   configure CC=gcc --enable-sanitizers; make; make check (ASan, UBSan, LSan)
#	4. build-fuzz/  configure CC=clang --enable-fuzz; make fuzz; tests/fuzz/run.sh runs each
#	                fuzz target for FUZZ_SECONDS (default 30) on a copy of its corpus
#	5. build/       make distcheck: the tarball builds out of tree, installs, uninstalls and
#	                cleans; its `make check` runs only the tests that read
#	                shipped files: vectors, man pages, --help tables, install), since
#	                steps 2 and 3 ran everything already
# A step's build runs beside the tests of the step before (tests mostly wait on their
# daemons): the sanitizer build beside the plain tests, the fuzz build and distcheck beside
# the sanitizer tests; their output is printed when they end. The fuzzers run last.
#
#	--quick          step 2 only
#	--no-san         skip step 3
#	--no-fuzz        skip step 4
#	--no-distcheck   skip step 5
#	--clean          remove the build directories first
#
# Environment: JOBS (make -j of the builds, default 2), TEST_JOBS (tests run at once,
# default twice JOBS: most of a test's time is spent waiting on its daemons, not on a CPU),
# FUZZ_SECONDS (default 30), FUZZ_JOBS (fuzz targets
# run at once, default: the CPU count), TEST_VERBOSE=1 (also print each passing test point).
#
# Each test file prints a "done:" line with its counts as it finishes (the
# tests of a build run TEST_JOBS at a time); the logs of failing tests are
# printed at the end of their pass. The last line adds up the automake test results of
# every pass and the fuzz targets: "N passed, N failed, N skipped" (a step that fails before
# its tests run counts as one failure). Exit status: 0 when nothing failed, 1 otherwise.

set -u
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

do_san=yes
do_fuzz=yes
do_distcheck=yes
clean=no
jobs=${JOBS:-2}
test_jobs=${TEST_JOBS:-$((jobs * 2))}
export FUZZ_SECONDS=${FUZZ_SECONDS:-30}

usage()
{
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) do_san=no; do_fuzz=no; do_distcheck=no ;;
	--no-san) do_san=no ;;
	--no-fuzz) do_fuzz=no ;;
	--no-distcheck) do_distcheck=no ;;
	--clean) clean=yes ;;
	-h | --help) usage; exit 0 ;;
	*) echo "test.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done

scratch=$(mktemp -d "${TMPDIR:-/tmp}/airlox-test.XXXXXX") || exit 1
trap 'rm -rf "$scratch"' EXIT
failures=$scratch/failures.tap	# "not ok" lines for steps that failed before any test ran
: >"$failures"
suites=()			# build directories whose test-suite.log counts
taps=()				# TAP files that count
started=$SECONDS

section()
{
	printf '\n==== %s (%s)\n' "$*" "$(elapsed $((SECONDS - started)))"
}

elapsed()
{
	printf '%dm%02ds' $(($1 / 60)) $(($1 % 60))
}

# A step failed before its tests could run: it counts as one failed test.
step_failed()
{
	echo "not ok - $*" >>"$failures"
	echo "test.sh: FAILED: $*" >&2
}

# Print the logs of the tests that failed in a build directory's last `make check`: all
# but the passing test points, and of a long log its first 100 and last 200 such lines,
# where a sanitizer's report ends up.
show_failed_logs()
{
	local dir=$1 stamp=$2 trs log lines

	while IFS= read -r trs; do
		grep -q -E '^:global-test-result: (FAIL|ERROR|XPASS)' "$trs" || continue
		log=${trs%.trs}.log
		printf '\n---- %s (passing test points left out)\n' "${log#"$top"/}"
		grep -v -E '^(ok [0-9]|PASS: )' "$log" >"$scratch/failed.log"
		lines=$(wc -l <"$scratch/failed.log")
		if [ "$lines" -le 300 ]; then
			cat "$scratch/failed.log"
		else
			head -n 100 "$scratch/failed.log"
			echo "[... $((lines - 300)) lines left out; the full log is $log]"
			tail -n 200 "$scratch/failed.log"
		fi
	done < <(find "$dir" -name '*.trs' -newer "$stamp" | sort)
}

# Configure DIR and make TARGET there: configure_and_make NAME DIR TARGET CONFIGURE-ARGS...
# Returns non-zero, after counting the failure, when either step fails.
configure_and_make()
{
	local name=$1 dir=$2 target=$3 before after
	shift 3

	section "$name: $dir: configure $*"
	mkdir -p "$dir"
	# ("x" first: a tree configured with no options says nothing.)
	before=$(cd "$dir" 2>/dev/null && [ -x config.status ] &&
	    printf 'x %s' "$(./config.status --config)")
	if ! (cd "$dir" && "$top/configure" -q "$@"); then
		step_failed "$name: configure failed (see $dir/config.log)"
		return 1
	fi
	# A tree built with other options (scripts/quickstart.sh builds
	# build/ without --enable-werror): its objects would be kept as they
	# are, so build them again.
	after=$(cd "$dir" && printf 'x %s' "$(./config.status --config)")
	if [ -n "$before" ] && [ "$before" != "$after" ]; then
		echo "test.sh: $dir was configured with other options" \
		    "(${before#x }): make clean"
		make -C "$dir" --no-print-directory clean >/dev/null
	fi
	section "$name: make $target"
	if ! make -C "$dir" -j"$jobs" --no-print-directory "$target"; then
		step_failed "$name: make $target failed"
		return 1
	fi
}

# A build's `make check`: run_checks NAME DIR
run_checks()
{
	local name=$1 dir=$2 rc

	section "$name: make check"
	rm -f "$dir/test-suite.log"
	touch "$scratch/$name.stamp"
	# One line per passing TAP test point is noise: show the rest unless
	# TEST_VERBOSE=1, a line at a time (each test file's "done:" line is the
	# progress).
	make -C "$dir" -j"$test_jobs" --no-print-directory check 2>&1 |
	    if [ "${TEST_VERBOSE:-0}" = 1 ]; then cat
	    else grep --line-buffered -v '^PASS: '; fi
	rc=${PIPESTATUS[0]}
	if [ ! -f "$dir/test-suite.log" ]; then
		step_failed "$name: make check failed before running the tests"
		return
	fi
	suites+=("$dir")
	if [ "$rc" -ne 0 ]; then
		show_failed_logs "$dir" "$scratch/$name.stamp"
		sh tests/summary.sh "$dir" >/dev/null 2>&1 &&
		    step_failed "$name: make check exited $rc though no test failed"
	fi
}

# The fuzz targets (built in build-fuzz), each run for FUZZ_SECONDS on a
# copy of its corpus.
fuzz_run()
{
	section "fuzz: tests/fuzz/run.sh, $FUZZ_SECONDS s per target"
	bash tests/fuzz/run.sh -b build-fuzz | tee "$scratch/fuzz.tap"
	taps+=(-t "$scratch/fuzz.tap")
	grep -q '^1\.\.' "$scratch/fuzz.tap" || step_failed "fuzz: tests/fuzz/run.sh did not finish"
}

# make distcheck in the plain build: one test point, passed or failed.
distcheck_pass()
{
	local tests="tests/unit/test-vectors tests/packaging/man-help.sh"

	tests="$tests tests/client/table.sh tests/packaging/install.sh"
	section "distcheck: make distcheck (tests: $tests)"
	if make -C build --no-print-directory distcheck TESTS="$tests" \
	    >"$scratch/distcheck.log" 2>&1; then
		grep -A3 'archives ready' "$scratch/distcheck.log"
		echo "ok - make distcheck" >"$scratch/distcheck.tap"
	else
		tail -n 60 "$scratch/distcheck.log"
		step_failed "make distcheck failed"
	fi
}

# A build beside the tests of the step before (they mostly wait on their
# daemons; a build keeps the CPUs busy): run_beside NAME COMMAND... runs
# it with its output in a log, wait_beside NAME waits for it, prints the
# log and returns its status (1 when it was never started).
declare -A beside_pid
run_beside()
{
	local name=$1
	shift

	section "$name: started beside the tests (its output follows when it ends)"
	( "$@" ) >"$scratch/$name.beside" 2>&1 &
	beside_pid[$name]=$!
}

wait_beside()
{
	local name=$1 rc

	[ -n "${beside_pid[$name]:-}" ] || return 1
	wait "${beside_pid[$name]}"
	rc=$?
	cat "$scratch/$name.beside"
	return $rc
}

if [ $clean = yes ]; then
	rm -rf build build-san build-fuzz
fi

section "dependencies: scripts/install-deps.sh"
sh scripts/install-deps.sh </dev/null || step_failed "scripts/install-deps.sh failed"

# configure is made again only when it is missing or older than what it is
# made from: running autoreconf every time would rewrite the files under a
# configure or make running beside this one in the same tree.
configure_stale()
{
	local f

	[ -x configure ] && [ -f Makefile.in ] || return 0
	for f in configure.ac Makefile.am */*.inc */*/*.inc m4/*.m4; do
		[ -f "$f" ] && [ "$f" -nt configure ] && return 0
	done
	return 1
}

reconf=0
if configure_stale; then
	section "autoreconf -fi"
	autoreconf -fi >"$scratch/autoreconf.log" 2>&1 || reconf=$?
else
	section "autoreconf: configure is up to date"
fi
san_build() { configure_and_make sanitizers build-san all CC=gcc --enable-sanitizers; }
fuzz_build() { configure_and_make fuzz build-fuzz fuzz CC=clang --enable-fuzz; }

# Steps 2 to 5, the builds of each step beside the tests of the one
# before: the sanitizer build beside the plain tests, the fuzz build and
# distcheck beside the sanitizer tests; the fuzzers, which want every CPU,
# run last.
if [ $reconf -eq 0 ]; then
	if configure_and_make plain build all --enable-werror; then
		[ $do_san = yes ] && run_beside sanitizers-build san_build
		run_checks plain build
	fi
	if [ $do_san = yes ] && wait_beside sanitizers-build; then
		[ $do_fuzz = yes ] && run_beside fuzz-build fuzz_build
		[ $do_distcheck = yes ] && [ -f build/Makefile ] &&
		    run_beside distcheck distcheck_pass
		# The Docker image test (tests/packaging/docker.sh) runs once,
		# in the first pass: it tests no code of ours that ASan could.
		AIRLOX_SKIP_DOCKER=1 \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		    run_checks sanitizers build-san
	fi
	if [ $do_fuzz = yes ]; then
		if [ -n "${beside_pid[fuzz-build]:-}" ]; then
			wait_beside fuzz-build && fuzz_run
		else
			fuzz_build && fuzz_run
		fi
	fi
	if [ $do_distcheck = yes ] && [ -f build/Makefile ]; then
		if [ -n "${beside_pid[distcheck]:-}" ]; then
			wait_beside distcheck
		else
			distcheck_pass
		fi
		[ -f "$scratch/distcheck.tap" ] && taps+=(-t "$scratch/distcheck.tap")
	fi
else
	cat "$scratch/autoreconf.log" >&2
	step_failed "autoreconf -fi failed"
fi

section "done"
echo "test.sh: total time $(elapsed $((SECONDS - started)))"
sh tests/summary.sh -t "$failures" "${taps[@]}" "${suites[@]}"
