#!/bin/bash
# run.sh: run each libFuzzer target for a while on a copy of its corpus, and print TAP.
#
#	tests/fuzz/run.sh [-b BUILDDIR] [-t SECONDS] [-j JOBS] [--update-corpus] [NAME...]
#
#	-b BUILDDIR      the build configured with CC=clang --enable-fuzz, after `make fuzz`
#	                 (default: build-fuzz in the source tree)
#	-t SECONDS       how long each target runs (default: FUZZ_SECONDS, or 30)
#	-j JOBS          how many targets run at once (default: FUZZ_JOBS, or the CPU count)
#	--update-corpus  afterwards, merge what each run found into tests/fuzz/corpus/NAME/
#	                 (for developers; refused when CI is set)
#	NAME             fuzz-json, json, ... (default: every tests/fuzz/fuzz-*.c)
#
# The seed corpus tests/fuzz/corpus/NAME/ (or corpus/json/ for fuzz-json) is only read:
# it is copied to BUILDDIR/tests/fuzz/corpus-run/NAME/corpus/, where libFuzzer adds what it
# finds. A crash leaves its input and the full log in BUILDDIR/tests/fuzz/corpus-run/NAME/.
# An optional tests/fuzz/NAME.dict is passed as a dictionary, and tests/fuzz/NAME.options
# holds extra libFuzzer flags, one a line (for instance -max_len=65536).
#
# Each target is one TAP test: ok when it ran its time without a crash, leak, timeout or
# out-of-memory; skipped when its source exists but its binary was not built.
# Exit status: 0 when no target failed, 1 otherwise, 2 on a usage error.

set -u
set -o pipefail

srcdir=$(cd "$(dirname "$0")/../.." && pwd)
builddir=$srcdir/build-fuzz
seconds=${FUZZ_SECONDS:-30}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
update_corpus=no
names=()

usage()
{
	sed -n '2,12s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
	case $1 in
	-b) builddir=${2:?-b needs a directory}; shift ;;
	-t) seconds=${2:?-t needs a number of seconds}; shift ;;
	-j) jobs=${2:?-j needs a number}; shift ;;
	--update-corpus) update_corpus=yes ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "run.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
	*) names+=("fuzz-${1#fuzz-}") ;;
	esac
	shift
done

case $seconds$jobs in
*[!0-9]*) echo "run.sh: -t and -j take whole numbers" >&2; exit 2 ;;
esac
[ "$jobs" -ge 1 ] || jobs=1
if [ "$update_corpus" = yes ] && [ -n "${CI:-}" ]; then
	echo "run.sh: --update-corpus writes into the source tree; not under CI" >&2
	exit 2
fi
if [ ! -d "$builddir" ]; then
	echo "run.sh: $builddir: no such build directory (configure CC=clang --enable-fuzz, make fuzz)" >&2
	exit 2
fi
builddir=$(cd "$builddir" && pwd)

if [ ${#names[@]} -eq 0 ]; then
	for src in "$srcdir"/tests/fuzz/fuzz-*.c; do
		[ -e "$src" ] || continue
		name=${src##*/}
		names+=("${name%.c}")
	done
fi

rundir=$builddir/tests/fuzz/corpus-run

# The seed corpus of a target: tests/fuzz/corpus/fuzz-NAME/, or tests/fuzz/corpus/NAME/
# when only that one exists.
seed_dir()
{
	local dir=$srcdir/tests/fuzz/corpus

	if [ ! -d "$dir/$1" ] && [ -d "$dir/${1#fuzz-}" ]; then
		echo "$dir/${1#fuzz-}"
	else
		echo "$dir/$1"
	fi
}

# The libFuzzer flags for one target, one a line.
target_flags()
{
	local name=$1 out=$2

	printf '%s\n' "-max_total_time=$seconds" -timeout=10 -rss_limit_mb=2048 \
	    -print_final_stats=1 "-artifact_prefix=$out/"
	[ -f "$srcdir/tests/fuzz/$name.dict" ] &&
	    printf '%s\n' "-dict=$srcdir/tests/fuzz/$name.dict"
	[ -f "$srcdir/tests/fuzz/$name.options" ] &&
	    grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$srcdir/tests/fuzz/$name.options"
	return 0
}

# Run one target and write its TAP line (without the number) to $out/result.
run_target()
{
	local name=$1 bin=$builddir/tests/fuzz/$1 out=$rundir/$1
	local seed flags rc runs

	seed=$(seed_dir "$name")

	rm -rf "$out"
	mkdir -p "$out/corpus"
	if [ ! -x "$bin" ]; then
		echo "ok - $name # SKIP not built (list it in tests/fuzz/Makefile.inc)" >"$out/result"
		return
	fi
	[ -d "$seed" ] && cp -R "$seed/." "$out/corpus/"
	mapfile -t flags < <(target_flags "$name" "$out")

	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	    "$bin" "${flags[@]}" "$out/corpus" </dev/null >"$out/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -n 1)
	if [ $rc -eq 0 ]; then
		echo "ok - $name: ${seconds} s, ${runs:-?} runs, corpus $(find "$seed" -type f 2>/dev/null | wc -l) -> $(find "$out/corpus" -type f | wc -l) inputs" >"$out/result"
	else
		{
			echo "not ok - $name: exit $rc after ${runs:-?} runs; log and input in $out"
			# the sanitizer's report, from its first line to its summary
			awk '/ERROR: |runtime error:|^==[0-9]+== *ERROR/ { on = 1 }
			    on { print; if (/^SUMMARY: /) exit }' "$out/log" |
			    head -n 40 | sed 's/^/# /'
			for f in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
				[ -e "$f" ] && echo "# reproduce: $bin $f"
			done
		} >"$out/result"
	fi
}

mkdir -p "$rundir"
echo "# fuzz targets: ${#names[@]}, $seconds s each, $jobs at a time"
running=0
for name in "${names[@]}"; do
	if [ $running -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_target "$name" &
	running=$((running + 1))
done
wait

echo "1..${#names[@]}"
n=0
status=0
for name in "${names[@]}"; do
	n=$((n + 1))
	result=$rundir/$name/result
	if [ ! -f "$result" ]; then
		echo "not ok $n - $name: no result"
		status=1
		continue
	fi
	sed "1s/^\(\(not \)\{0,1\}ok\) -/\1 $n -/" "$result"
	grep -q '^not ok' "$result" && status=1
done

if [ "$update_corpus" = yes ]; then
	for name in "${names[@]}"; do
		bin=$builddir/tests/fuzz/$name
		[ -x "$bin" ] || continue
		seed=$(seed_dir "$name")
		mkdir -p "$seed"
		"$bin" -merge=1 "$seed" "$rundir/$name/corpus" \
		    >"$rundir/$name/merge.log" 2>&1 ||
		    echo "run.sh: $name: merge failed, see $rundir/$name/merge.log" >&2
	done
fi
exit $status
