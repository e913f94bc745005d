#!/bin/sh
# The local sandbox's file system, environment and fds, proven from inside.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local

# Canaries: a fake runner state dir, and /root (we may be root).
mkdir -p "$T/state" && echo "canary-state-$$" > "$T/state/key" &&
    chmod 700 "$T/state" || exit 99
RCANARY=
if [ -w /root ]; then
	RCANARY=/root/.airlox-canary-$$
	echo "canary-root-$$" > "$RCANARY" && CLEANUP_FILES=$RCANARY
fi

run_job -t 20000 -- /bin/sh -c 'echo hello; echo oops >&2; exit 7'
is "$(jget stdout)" "hello" "stdout captured"
is "$(jget stderr)" "oops" "stderr captured"
is "$(jget exit_code)/$(jget status)" "7/completed" "exit code and status"

run_job -c 100 -- /bin/sh -c 'i=0; while [ $i -lt 200 ]; do echo 0123456789; i=$((i+1)); done'
is "$(jget stdout | wc -c)/$(jget stdout_truncated)" "100/true" \
    "stdout capped at the limit and flagged truncated"

run_job -- /bin/sh -c "cat '$T/state/key'; cat /root/.airlox-canary-$$; ls /root; ls '$T'"
lacks "$(jget stdout)" "canary-" "canary files of the state dir and /root unreadable"
has "$(jget stderr)" "No such file" "host paths do not exist inside"
if [ -n "$RCANARY" ]; then
	cat "$RCANARY" >/dev/null; ok $? "the /root canary is readable outside (test can fail)"
fi

run_job -- /bin/sh -c 'for f in /etc/x /usr/x /x /bin/x /dev/x /proc/x; do
	./probe write $f; done; ./probe write /work/w; ./probe write /out/o;
	./probe write /tmp/t; ./probe write /dev/shm/s; ./probe write /dev/null'
is "$(jget stdout | grep -c '^open: failed')" 6 "writes outside the workspace fail"
is "$(jget stdout | grep -c '^write: ok')" 5 "workspace, out, /tmp, /dev/shm, /dev/null writable"
[ -f "$WS/w" ] && [ -f "$OUT/o" ]; ok $? "files written land in the host workspace and out dir"
[ "$(stat -c %u "$WS/w")" != 0 ]; ok $? "the job's files are not owned by host root"

# Hand-over of the workspace (as root): inputs become the job's, a hard
# link to a host file does not.
if [ "$(id -u)" = 0 ]; then
	echo host-file > "$T/hostfile"
	PREP='echo input > "$WS/input"; ln "$T/hostfile" "$WS/link"'
	run_job -- /bin/sh -c 'echo more >> input && echo INPUT-OK; echo x >> link || echo LINK-DENIED'
	PREP=
	has "$(jget stdout)" INPUT-OK "the runner's input files are writable by the job"
	has "$(jget stdout)" LINK-DENIED "a hard-linked host file is not handed over"
	is "$(stat -c %u "$T/hostfile")/$(cat "$T/hostfile")" 0/host-file \
	    "the host file keeps its owner and content"
fi

# Landlock on its own: /proc/self/comm is writable by DAC, not by the rules.
run_job -- /bin/sh -c 'printf x > /proc/self/comm && echo WROTE; exit 0'
lacks "$(jget stdout)" "WROTE" "Landlock denies writes outside its rules (/proc/self/comm)"
printf x > /proc/self/comm 2>/dev/null; ok $? "/proc/self/comm writable outside (test can fail)"

# Exactly the expected mounts and /dev nodes.
want="/ /dev /dev/full /dev/null /dev/random /dev/shm /dev/tty /dev/urandom /dev/zero"
for d in alternatives python3 python3.11 python3.12 python3.13 ssl/certs; do
	[ -d "/etc/$d" ] && [ ! -L "/etc/$d" ] && want="$want /etc/$d"
done
for d in bin sbin lib lib32 lib64 libx32; do
	[ -d "/$d" ] && [ ! -L "/$d" ] && want="$want /$d"
done
want=$(echo "$want /out /proc /tmp /usr /work" | tr ' ' '\n' | sort | tr '\n' ' ')
run_job -- /bin/sh -c "awk '{print \$5}' /proc/self/mountinfo | sort | tr '\n' ' '"
is "$(jget stdout)" "$want" "mountinfo holds exactly the expected mounts"
run_job -- /bin/sh -c 'ls -A /dev | tr "\n" " "'
is "$(jget stdout)" "fd full null random shm stderr stdin stdout tty urandom zero " \
    "/dev holds only the expected nodes"

run_job -- /bin/sh -c 'ls /proc | grep -c "^[0-9]"; cat /proc/1/comm'
is "$(jget stdout | tail -1)" "airlox-shim" "pid 1 is our init"
[ "$(jget stdout | head -1)" -le 4 ]; ok $? "/proc shows only the job's processes"

run_job -- ./probe fds
is "$(jget stdout)" "0 1 2 " "only fds 0-2 reach the job"

# Environment: allow list only; credentials never, even when allowed.
export AIRLOX_TEST_CANARY=canary-env-$$ GITHUB_TOKEN=canary-cred-$$ \
    ALX_OK_VAR=passed-$$
run_job -e ALX_OK_VAR -e GITHUB_TOKEN -- /usr/bin/env
lacks "$(jget stdout)" "canary-env-$$" "a variable of the runner's environment is absent"
lacks "$(jget stdout)" "canary-cred-$$" "a credential is absent even when allow-listed"
has "$(jget stdout)" "ALX_OK_VAR=passed-$$" "an allow-listed variable is passed"
has "$(jget stdout)" "AIRLOX_OUT=/out" "AIRLOX_OUT points at /out"

run_job -- python3 -c 'import os; print(6 * 7, os.getcwd())'
is "$(jget stdout)" "42 /work" "python3 jobs run"

done_testing
