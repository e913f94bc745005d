#!/bin/bash
# quickstart.sh: build airlox and run one job end to end on this machine.
#
#	scripts/quickstart.sh
#
# It installs the build dependencies (scripts/install-deps.sh), builds out of tree in build/,
# and then, with everything on 127.0.0.1 and under a temporary directory:
#	1. starts an ephemeral relay (build/relayd/airlox-relayd) on a free port, plain HTTP;
#	2. adds a machine named "local" (airlox machine add local --yes), which prints the
#	   command that joins a runner to it;
#	3. starts the runner (build/runnerd/airlox-runnerd) with that command;
#	4. sends a small project (a new git repository) with
#	   `airlox run --on local --tree -- make check` and prints the job's output and signed
#	   result;
#	5. stops everything, also on Ctrl-C or failure.
# While one of the three programs is not built yet, it says which, runs the libairlox unit
# tests instead as a smoke test, and exits with their status.
#
# Environment: JOBS (make -j, default: the CPU count), KEEP=1 keeps the temporary directory.

set -u
set -o pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

relayd=$build/relayd/airlox-relayd
runnerd=$build/runnerd/airlox-runnerd
client=$build/client/airlox

work=""		# temporary directory: relay data, client and runner state, logs
pids=()		# background processes to stop on exit

say()
{
	printf 'quickstart: %s\n' "$*"
}

# Stop with a message; the temporary directory is kept for its logs.
die()
{
	printf 'quickstart: %s\n' "$*" >&2
	KEEP=1
	exit 1
}

cleanup()
{
	local pid

	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null
	done
	if [ -n "$work" ]; then
		if [ "${KEEP:-0}" = 1 ]; then
			say "kept $work"
		else
			rm -rf "$work"
		fi
	fi
}

install_deps()
{
	sh "$top/scripts/install-deps.sh" || die "installing the dependencies failed"
}

build_tree()
{
	if [ ! -x "$top/configure" ]; then
		say "autoreconf -fi"
		(cd "$top" && autoreconf -fi) >/dev/null 2>&1 || die "autoreconf -fi failed"
	fi
	mkdir -p "$build"
	if [ ! -f "$build/config.status" ]; then
		say "configuring in build/"
		(cd "$build" && "$top/configure" -q) || die "configure failed (see build/config.log)"
	fi
	say "building in build/ (make -j$jobs)"
	if ! make -C "$build" -j"$jobs" -s --no-print-directory >"$build/quickstart-make.log" 2>&1; then
		tail -n 40 "$build/quickstart-make.log" >&2
		die "the build failed; full output: build/quickstart-make.log"
	fi
}

# The programs the real flow needs that are not built yet, one a line.
missing_programs()
{
	local prog

	for prog in "$relayd" "$runnerd" "$client"; do
		[ -x "$prog" ] || printf '%s\n' "${prog#"$top"/}"
	done
}

# The unit tests, quietly: one summary line, and the failing tests' logs if any.
smoke_test()
{
	say "running the libairlox unit tests as a smoke test"
	if make -C "$build" -j"$jobs" -s --no-print-directory check >"$build/quickstart-check.log" 2>&1; then
		say "unit tests: $(sh "$top/tests/summary.sh" "$build")"
		return 0
	fi
	grep -E '^(FAIL|ERROR|XPASS)' "$build/quickstart-check.log"
	[ -f "$build/test-suite.log" ] && cat "$build/test-suite.log"
	say "unit tests failed: $(sh "$top/tests/summary.sh" "$build" 2>&1)"
	say "full output: build/quickstart-check.log"
	return 1
}

# Wait up to SECONDS for a command to succeed while process PID runs:
# wait_for PID SECONDS COMMAND... (generous: a busy machine may be slow,
# and a process that dies ends the wait at once)
wait_for()
{
	local pid=$1 tries=$(($2 * 10))
	shift 2
	while [ $tries -gt 0 ]; do
		"$@" >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		tries=$((tries - 1))
		sleep 0.1
	done
	return 1
}

# The relay picks a free port itself (port 0) and writes the address it bound to a file.
start_relay()
{
	local addr

	say "starting an ephemeral relay on 127.0.0.1"
	"$relayd" --listen 127.0.0.1:0 --port-file "$work/relay.port" --plain-http --ephemeral \
	    --allow-no-expiry \
	    >"$work/relay.log" 2>&1 &
	relay_pid=$!
	pids+=("$relay_pid")
	wait_for "$relay_pid" 60 test -s "$work/relay.port" ||
	    die "the relay did not start; its log: $work/relay.log"
	addr=$(head -n 1 "$work/relay.port")
	relay_url=http://$addr
	export AIRLOX_RELAY=$relay_url
	wait_for "$relay_pid" 60 curl -fsS "$relay_url/v1/health" ||
	    die "the relay does not answer on $relay_url/v1/health; its log: $work/relay.log"
	say "relay at $relay_url"
}

# Add the machine "local": `machine add` prints the runner's join command, then waits until
# that runner joins, so it runs in the background while the runner starts.
add_machine_and_join_runner()
{
	local join add_pid

	say "airlox machine add local --yes"
	"$client" machine add local --yes \
	    >"$work/machine-add.out" 2>&1 </dev/null &
	add_pid=$!
	pids+=("$add_pid")
	wait_for "$add_pid" 120 grep -q 'runner join' "$work/machine-add.out" ||
	    die "machine add printed no join command; its output: $work/machine-add.out"
	# The printed command, run as printed: its words, with the build's programs on PATH.
	join=$(grep -m 1 -o 'airlox runner join.*' "$work/machine-add.out")
	read -r -a join_words <<<"$join"
	say "starting the runner: ${join_words[*]:0:3} ..."
	"${join_words[@]}" >"$work/runner.log" 2>&1 </dev/null &
	pids+=($!)
	wait "$add_pid" ||
	    die "machine add failed; see $work/machine-add.out and $work/runner.log"
	cat "$work/machine-add.out"
}

# A small project with a test, sent as the working tree.
make_demo_project()
{
	mkdir -p "$work/demo"
	cat >"$work/demo/hello.c" <<'EOF'
#include <stdio.h>

int
main(void)
{
	printf("hello from the runner\n");
	return 0;
}
EOF
	cat >"$work/demo/Makefile" <<'EOF'
check: hello
	./hello

hello: hello.c
	$(CC) -o $@ hello.c
EOF
	# --tree sends a git repository's files (tracked, and untracked ones
	# git does not ignore); a folder outside one needs --tree-folder.
	git -C "$work/demo" init -q || die "git init failed in $work/demo"
}

run_job()
{
	say "airlox run --on local --tree -- make check"
	(cd "$work/demo" && "$client" run --on local --tree -- make check)
}

real_flow()
{
	work=$(mktemp -d "${TMPDIR:-/tmp}/airlox-quickstart.XXXXXX") || die "mktemp failed"
	# The client and the runner keep their state under the temporary home.
	export HOME=$work/home XDG_CACHE_HOME=$work/home/.cache XDG_CONFIG_HOME=$work/home/.config
	# The runner's key, invite and job folders stay in the temporary
	# directory too (as root its default would be /var/lib/airlox-runner/NAME).
	export AIRLOX_STATE_DIR=$work/runner-state AIRLOX_WORK_ROOT=$work/runner-work
	mkdir -p "$HOME" "$AIRLOX_WORK_ROOT"
	export PATH=${client%/*}:${runnerd%/*}:${relayd%/*}:$PATH
	start_relay
	add_machine_and_join_runner
	make_demo_project
	run_job
}

main()
{
	local missing

	case ${1:-} in
	"") ;;
	-h | --help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; return 0 ;;
	*) echo "quickstart: unknown argument: $1 (it takes none)" >&2; return 2 ;;
	esac
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	install_deps
	build_tree
	missing=$(missing_programs)
	if [ -n "$missing" ]; then
		say "not built yet, so no end-to-end job: ${missing//$'\n'/ }"
		smoke_test
		return
	fi
	real_flow
}

main "$@"
