#!/bin/sh
# workspace-slots.sh: a sender's workspace outlives the slot its job ran
# in. Each slot runs jobs as its own host uid (concurrent jobs cannot
# signal each other), so a later job of the same sender in another slot
# must still own what the earlier one made: a runner with --concurrency 2,
# bob's first job (slot 0) makes build/a.txt, carol keeps slot 0 busy, and
# bob's second job (slot 1) appends to the file and creates next to it.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 git
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "per-slot job uids need root"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 512
ok $? "an execute session"
mkdir -p "$T/rwork"
AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box --state-dir "$T/rstate" \
    --work-root "$T/rwork" --concurrency 2 >>"$T/runner.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
wait_for joined box
ok $? "the runner (2 slots) joined"
INV=$OWNER ax alice session approve box >/dev/null
ok $? "the owner approves it"

P=$T/proj
mkdir -p "$P" && cd "$P" || exit 1
git init -q . && git config commit.gpgsign false
echo hello >README && git add . && git commit -q -m init
ok $? "a checkout"

INV=$SENDER ax bob --json run --on box --timeout 60 --tree -- sh -c \
    'mkdir -p build && echo one >build/a.txt && id -u' >"$T/r1.json" 2>"$T/r1.err"
is $? 0 "bob's first job makes build/a.txt"
uid1=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if "stdout" in j: print(j["stdout"].strip())' "$T/r1.json")

# carol's job holds slot 0 while bob's second job runs.
# (It sleeps well past bob's job however slow the machine, within the
# session's 60 s, and is cancelled once bob's job is done.)
INV=$SENDER ax carol --json run --on box --no-wait -- sleep 55 >"$T/c.json" 2>&1
is $? 0 "carol's long job is posted"
busy() {	# the runner's log: bob's job, then carol's, started
	[ "$(grep -c ': started in slot' "$T/runner.log")" -ge 2 ]
}
wait_for busy
ok $? "carol's job runs"
INV=$SENDER ax bob --json run --on box --timeout 60 --tree -- sh -c \
    'echo two >>build/a.txt && touch build/b.txt && cat build/a.txt' \
    >"$T/r2.json" 2>"$T/r2.err"
st=$?
is $st 0 "bob's second job, in the other slot, writes to what the first made"
[ $st -eq 0 ] || sed 's/^/#   /' "$T/r2.err" "$T/r2.json" | tail -n 20
out=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if "stdout" in j: print(j["stdout"].strip().replace("\n", " "))' "$T/r2.json")
is "$out" "one two" "the file holds both jobs' lines"
ws=$(ls -d "$T"/rwork/ws-* 2>/dev/null | head -n 1)
a_uid=$(stat -c %u "$ws/build/a.txt" 2>/dev/null)
b_uid=$(stat -c %u "$ws/build/b.txt" 2>/dev/null)
is "$a_uid" "$b_uid" "the earlier job's file was handed to the later job's uid"
grep -q 'started in slot 1' "$T/runner.log"
ok $? "bob's second job ran in slot 1"
ok $([ -n "$uid1" ] && echo 0 || echo 1) "the jobs ran as a job uid ($uid1 inside)"
INV=$SENDER ax carol job cancel -- "$(json_get "$T/c.json" 'j["job"]')" >/dev/null 2>&1
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/runner.log" | tail -20
fi
done_testing
