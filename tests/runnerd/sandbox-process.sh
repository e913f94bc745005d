#!/bin/sh
# The process backend: unsandboxed, but the same environment, fd, rlimit
# and kill rules, and an enforced text that says so.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
[ -x "$PY" ] || skip_all "no $PY to read JSON"
BACKEND=process

ENF=$("$SBRUN" -E -b process)
has "$ENF" "UNSANDBOXED" "the enforced text says unsandboxed"

export AIRLOX_TEST_CANARY=canary-env-$$ GITHUB_TOKEN=canary-cred-$$
run_job -e GITHUB_TOKEN -- /bin/sh -c 'env; ./probe fds; pwd; exit 4'
out=$(jget stdout)
lacks "$out" "canary-" "runner variables and credentials are absent"
has "$out" "AIRLOX_OUT=$OUT" "AIRLOX_OUT is the out dir"
has "$out" "0 1 2 
" "only fds 0-2"
has "$out" "$WS" "runs in the workspace"
is "$(jget exit_code)" 4 "exit code"
has "$(jget enforced)" "UNSANDBOXED" "the result's env says unsandboxed"

MARK=$((($$ % 50000) + 10000)).$(date +%N | cut -c1-6)
run_job -t 1000 -- /bin/sh -c "sleep $MARK & sleep 300"
is "$(jget status)" timeout "timeout"
pgrep -f "sleep $MARK" >/dev/null; [ $? -ne 0 ]; ok $? "the process group is killed"
case $ENF in
*"pids: cgroup"*)
	MARK2=$((($$ % 50000) + 10000)).$(date +%N | cut -c1-6)
	run_job -t 1000 -- /bin/sh -c "./probe daemon $MARK2; sleep 300"
	pgrep -f "sleep $MARK2" >/dev/null; [ $? -ne 0 ]
	ok $? "a setsid daemon is killed through the cgroup"
	;;
*)	skip "a setsid daemon is killed through the cgroup" "no cgroup: setsid daemons escape the process backend" ;;
esac

run_job -f 1048576 -- /bin/sh -c 'head -c 3000000 /dev/zero > f'
is "$(stat -c %s "$WS/f")" 1048576 "RLIMIT_FSIZE"

done_testing
