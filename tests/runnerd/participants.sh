#!/bin/sh
# participants.sh: no participant can read or wreck another's work, and no
# item a participant can post stops another member's reader.
#
# The real relay (its test build, so that it can also play a relay that
# stores what it should refuse: POST /v1/test/lax), the real runner and the
# real client. mallory is a second sender, rogue a second approved runner;
# tests/runnerd/craft-job posts what their clients would not.
#   1. A sender cancels another sender's job: the client and the relay
#      refuse it; stored anyway, every reader passes over it (a warning
#      naming mallory) and reads on, and the job is not cancelled.
#   2. A validly signed message whose meta does not open: watch names its
#      author and reads on.
#   3. A result from an approved runner the job was not given to: the
#      relay refuses it; stored anyway, the sender's view does not take it,
#      and the real result still arrives.
#   4. A job whose key is not wrapped to the owner: the relay refuses it;
#      stored anyway, the runner passes over it and nothing runs.
. "${top_srcdir:-.}/tests/lib.sh"
RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
case $RELAYD in /*) ;; *) RELAYD=$(pwd)/$RELAYD ;; esac
[ -x "$RELAYD" ] || skip_all "no $RELAYD (make check builds it)"
need python3 curl
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
CRAFT=$top_builddir/tests/runnerd/craft-job
case $CRAFT in /*) ;; *) CRAFT=$(pwd)/$CRAFT ;; esac

tap_on_fail() {
	sed 's/^/#   runner: /' "$T/runner.log" 2>/dev/null | tail -n 8
}

# craft NAME INVITE MODE ARG: craft-job as participant NAME; prints
# "ID WHAT-THE-RELAY-SAID".
craft() {
	XDG_CACHE_HOME="$T/c-$1" CRAFT_NAME=$1 AIRLOX_INVITE=$2 "$CRAFT" "$3" "$4"
}
lax() {
	curl -s -X POST "$URL/v1/test/lax?roles=$1" >"$T/lax.json" &&
	    grep -q "\"roles\":$2" "$T/lax.json"
}
start_runner() {
	HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box \
	    --state-dir "$T/rstate" --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
# result NAME JOB [WAIT]: the job's result as NAME sees it, in $T/res.json
result() {
	INV=$SENDER ax "$1" --json result ${3:+--wait $3} -- "$2" \
	    >"$T/res.json" 2>"$T/res.err"
}
field() {	# field KEY: a member of the result in $T/res.json
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("event") == "result":
        print(j.get(sys.argv[2], ""))' "$T/res.json" "$1"
}

start_relay || skip_all "the test relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session"
mkdir -p "$T/rwork" "$T/home"
printf 'sleep 3\necho bob-finished\n' >"$T/slow.sh"
printf 'echo hello\n' >"$T/hello.sh"
start_runner
runner_ready() { grep -q 'waiting for the owner\|waiting for jobs\|approved' "$T/runner.log"; }
wait_for runner_ready
# The sandbox's verify report is verify.sh's matter, not this test's.
INV=$OWNER ax alice session approve --accept-weaker box >/dev/null 2>&1
ok $? "the owner approves the runner"

# 1. Cancel rights: only the job's author and the owner cancel it.
INV=$SENDER ax bob --json run --on box --no-wait --shell "$T/slow.sh" \
    >"$T/j1.json" 2>"$T/j1.err"
ok $? "bob posts a job"
J1=$(json_get "$T/j1.json" 'j["job"]')
INV=$SENDER ax mallory job cancel "$J1" >"$T/c1.out" 2>"$T/c1.err"
st=$?
ok $([ $st -eq 3 ] && echo 0 || echo 1) "mallory's client refuses to cancel bob's job (exit $st)"
like "$(cat "$T/c1.err")" "wrong_role" "naming the rule (wrong_role)"
set -- $(craft mallory "$SENDER" cancel "$J1")
is "$2" wrong_role "the relay refuses mallory's cancel of bob's job"
result bob "$J1" 60
is "$(field status)" completed "bob's job ran to its end"
like "$(field stdout)" bob-finished "with its output"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/w1.json" 2>"$T/w1.err"
is $? 0 "the owner's watch reads the whole log"
INV=$SENDER ax bob --json run --on box --timeout 60 --shell "$T/hello.sh" \
    >"$T/r1.json" 2>"$T/r1.err"
is $? 0 "the runner still takes jobs"

# The relay turns hostile and stores what it should refuse.
lax on true
ok $? "the test relay no longer checks what an item may do"
INV=$SENDER ax bob --json run --on box --no-wait --shell "$T/slow.sh" \
    >"$T/j2.json" 2>"$T/j2.err"
J2=$(json_get "$T/j2.json" 'j["job"]')
job_running() { grep -q "job $J2: started" "$T/runner.log"; }
wait_for job_running
set -- $(craft mallory "$SENDER" cancel "$J2")
is "$2" posted "a hostile relay stores mallory's cancel"
C2=$1
result bob "$J2" 60
is "$(field status)" completed "the runner does not cancel bob's job for mallory"
passed() { grep -q "cancel item $C2 from mallory.*passed over: wrong_role" "$T/runner.log"; }
wait_for passed
ok $? "the runner names mallory and passes over her cancel"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/w2.json" 2>"$T/w2.err"
is $? 0 "the owner's watch reads on past it"
has "$(cat "$T/w2.json")" "\"event\":\"passed_over\",\"cursor\"" "and says it passed an item over"
like "$(grep passed_over "$T/w2.json")" "\"name\":\"mallory\".*\"error\":\"wrong_role\"" \
    "naming mallory and the rule"
like "$(cat "$T/w2.err")" "cancel item $C2 from mallory \\(sender, key .*\\) cancels a job of another author \\(wrong_role\\); passed over" \
    "a warning says who and why"
lax off false
ok $? "the relay is honest again"

# 2. A validly signed item that does not open.
set -- $(craft mallory "$SENDER" badmeta -)
is "$2" posted "mallory posts a message sealed under a key nobody has"
BAD=$1
INV=$SENDER ax bob send text after-the-bad-one >/dev/null 2>&1
ok $? "bob writes after it"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/w3.json" 2>"$T/w3.err"
is $? 0 "the owner's watch does not stop at it"
has "$(cat "$T/w3.json")" "after-the-bad-one" "and shows what came after"
like "$(grep "\"id\":\"$BAD\"" "$T/w3.json")" "\"event\":\"passed_over\".*\"name\":\"mallory\".*\"error\":\"bad_ciphertext\"" \
    "naming mallory (bad_ciphertext)"
like "$(cat "$T/w3.err")" "text item $BAD from mallory \\(sender, key .*\\) does not open \\(bad_ciphertext\\); passed over" \
    "in a warning too"
INV=$OWNER ax alice read "$BAD" >"$T/rd.out" 2>"$T/rd.err"
st=$?
is $st 6 "reading that one item fails as unverifiable (exit 6)"

# 3. A result counts only from a runner the job was given to.
set -- $(craft rogue "$RUNNER" join -)
is "$2" posted "rogue joins as a runner"
INV=$OWNER ax alice session approve --accept-weaker rogue >/dev/null 2>&1	# no report
ok $? "the owner approves rogue too"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
INV=$SENDER ax bob --json run --on box --no-wait --shell "$T/hello.sh" \
    >"$T/j3.json" 2>"$T/j3.err"
J3=$(json_get "$T/j3.json" 'j["job"]')
ok $([ -n "$J3" ] && echo 0 || echo 1) "bob posts a job for box (box is away)"
set -- $(craft rogue "$RUNNER" result "$J3")
is "$2" not_recipient "the relay refuses rogue's result for a job not given to it"
lax on true
set -- $(craft rogue "$RUNNER" result "$J3")
is "$2" posted "a hostile relay stores it"
R3=$1
result bob "$J3"
st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "bob's view has no result for the job yet (exit $st)"
lacks "$(cat "$T/res.json")" "312 tests passed" "rogue's word is not taken"
like "$(cat "$T/res.err")" "result item $R3 from rogue \\(runner, key .*\\) answers a job that was not given to its author \\(not_recipient\\)" \
    "a warning names rogue"
start_runner
result bob "$J3" 60
is "$(field status)" completed "box runs the job when it is back"
like "$(field stdout)" hello "and its result is the one bob gets"
lax off false

# 4. The owner reads every job: one not wrapped to it is refused.
set -- $(craft eve "$SENDER" noowner box)
is "$2" not_recipient "the relay refuses a job the owner cannot read"
lax on true
set -- $(craft eve "$SENDER" noowner box)
is "$2" posted "a hostile relay stores it"
J4=$1
passed4() { grep -q "job item $J4 from eve.*passed over: not_recipient" "$T/runner.log"; }
wait_for passed4
ok $? "the runner passes over it, naming eve"
INV=$SENDER ax bob --json run --on box --timeout 60 --shell "$T/hello.sh" \
    >"$T/r4.json" 2>"$T/r4.err"
is $? 0 "a later job runs (the runner read past it)"
grep -q -e "$J4" "$T/rstate/audit.log" 2>/dev/null
ok $(test $? -ne 0 && echo 0 || echo 1) "eve's job was never admitted"
ls "$T/rwork" | grep -q "job-$J4"
ok $(test $? -ne 0 && echo 0 || echo 1) "no folder was made for it"
lax off false

kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
done_testing
