#!/bin/sh
# Limits of the local sandbox: timeout kills the whole tree, memory ends
# the job as killed_oom, a fork bomb is contained, the disk quota stops
# the job, rlimits hold, cancel is graceful, cgroups are removed.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local

JOB=lim$$
cg_left() {	# cgroup dirs of this test's jobs still present
	find /sys/fs/cgroup -maxdepth 6 -type d -name "airlox-$JOB*" 2>/dev/null | wc -l
}

# Timeout: a setsid daemonised grandchild must die with the job.
MARK=$((($$ % 50000) + 10000)).$(date +%N | cut -c1-6)
run_job -j "$JOB" -t 1500 -- /bin/sh -c "./probe daemon $MARK; sleep 300"
is "$(jget status)" timeout "wall-clock timeout ends the job as timeout"
has "$(jget stdout)" "daemon started" "the daemon was started"
d=$(jget duration_ms)
# (A loaded machine ends it late, never early; the bound only catches a
# timeout that is not enforced.)
[ "$d" -ge 1400 ] && [ "$d" -lt 60000 ]; ok $? "duration past the limit ($d ms)"
pgrep -f "sleep $MARK" >/dev/null; [ $? -ne 0 ]; ok $? "nothing left running on the host"

case $ENF in
*"memory: cgroup"*)
	# (A size of its own, so pgrep sees no other test run's probe.)
	MIB=$((256 + $$ % 1000))
	run_job -j "$JOB" -m 67108864 -t 30000 -- ./probe alloc $MIB
	is "$(jget status)" killed_oom "memory over the limit ends killed_oom"
	p=$(jget peak_mem)
	[ "$p" != null ] && [ "$p" -ge 33554432 ]; ok $? "peak memory reported ($p)"
	pgrep -f "probe alloc $MIB\$" >/dev/null; [ $? -ne 0 ]; ok $? "no process left after OOM"
	run_job -j "$JOB" -m 268435456 -- ./probe alloc 16
	is "$(jget status)/$(jget exit_code)" completed/0 "a job under the memory limit completes"
	;;
*)	for i in 1 2 3 4; do skip "memory limit check $i" "memory cgroup not available"; done ;;
esac

case $ENF in
*"pids: cgroup"*)
	run_job -j "$JOB" -p 64 -t 20000 -- ./probe forkbomb 3
	made=$(jget stdout | awk '{print $3}')
	[ -n "$made" ] && [ "$made" -lt 64 ]; ok $? "fork bomb contained by the pids cap (made $made)"
	/bin/true; ok $? "the host still forks"
	;;
*)	for i in 1 2; do skip "pids limit check $i" "pids cgroup not available"; done ;;
esac

run_job -j "$JOB" -d 20971520 -t 60000 -- ./probe fill /work/big 200
is "$(jget status)" killed_disk "writing past the workspace quota stops the job"
sz=$(du -sm "$WS" | awk '{print $1}')
[ "$sz" -lt 150 ]; ok $? "the workspace stayed near the quota (${sz} MiB)"

run_job -j "$JOB" -f 1048576 -- /bin/sh -c 'head -c 3000000 /dev/zero > /work/f; echo rc=$?'
is "$(stat -c %s "$WS/f")" 1048576 "RLIMIT_FSIZE caps a file"
run_job -j "$JOB" -n 16 -- /bin/sh -c 'ulimit -n; ulimit -c'
is "$(jget stdout | tr '\n' ' ')" "16 0 " "RLIMIT_NOFILE and RLIMIT_CORE 0"

# Cancelled once the job has set its trap (it makes the file "ready").
run_job -j "$JOB" -W ready -C 100 -t 60000 -- /bin/sh -c 'trap "echo got-TERM; exit 3" TERM; : >ready; while :; do sleep 0.1; done'
is "$(jget status)/$(jget exit_code)" cancelled/3 "cancel: SIGTERM reaches the job"
has "$(jget stdout)" got-TERM "the job saw SIGTERM"
run_job -j "$JOB" -W ready -C 100 -t 60000 -- /bin/sh -c 'trap "" TERM; : >ready; while :; do sleep 0.1; done'
d=$(jget duration_ms)
is "$(jget status)/$(jget signal)" cancelled/9 "cancel: SIGKILL after the grace period"

# The sandbox dies with the runner (PR_SET_PDEATHSIG on pid 1).
MARK3=$((($$ % 50000) + 10000)).$(date +%N | cut -c1-6)
new_dirs
"$SBRUN" -s "$SHIM" -j "$JOB" -w "$WS" -o "$OUT" -t 60000 -- /bin/sh -c \
    "./probe daemon $MARK3; sleep 300" >/dev/null 2>&1 &
RPID=$!
wait_for pgrep -f "sleep $MARK3"
ok $? "a job with a daemon is running"
kill -9 $RPID; wait $RPID 2>/dev/null
daemon_gone() { ! pgrep -f "sleep $MARK3" >/dev/null; }
wait_for daemon_gone
ok $? "killing the runner kills the whole sandbox"
# The runner could not clean up after SIGKILL: remove its cgroups here.
find /sys/fs/cgroup -maxdepth 6 -type d -name "airlox-$JOB*" -exec rmdir {} + 2>/dev/null

is "$(cg_left)" 0 "the jobs' cgroups were removed"

done_testing
