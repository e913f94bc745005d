#!/bin/sh
# hostile-relay.sh: the runner refuses what a relay should have refused,
# and a client does not take a job's output a relay lost for all of it.
# The relay is the test build (tests/relayd/airlox-relayd-test), told to
# skip its role check (POST /v1/test/lax?roles=on): it stores a job an
# observer signed, though an observer may not post jobs. The runner's own
# verified view of the session must refuse that item: it passes over it,
# naming its author and the rule (wrong_role), and reads on; the job never
# runs, nothing is signed for it, and the runner stays up.
. "${top_srcdir:-.}/tests/lib.sh"
RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
case $RELAYD in /*) ;; *) RELAYD=$(pwd)/$RELAYD ;; esac
[ -x "$RELAYD" ] || skip_all "no $RELAYD (make check builds it)"
need python3 curl
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
CRAFT=$top_builddir/tests/runnerd/craft-job

start_relay || skip_all "the test relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session"
mkdir -p "$T/rwork" "$T/home"
HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box \
    --state-dir "$T/rstate" --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
joined() { grep -q 'waiting for the owner\|waiting for jobs\|approved' "$T/runner.log"; }
wait_for joined
INV=$OWNER ax alice session approve box >/dev/null 2>&1
ok $? "the owner approves the runner"

# Control: through the same relay, a sender's job runs.
INV=$SENDER ax bob --json run --on box --timeout 60 -- echo control \
    >"$T/control.json" 2>"$T/control.err"
is $? 0 "a sender's job runs"
like "$(json_get "$T/control.json" 'j.get("stdout", "")')" control "with its output"

# The relay loses the job's output (it answers not_found for every chunk
# of a progress item): run shows what came, and the runner's signed result
# (how many progress items, the last one's hash, each stream's size and
# SHA-256) says it is not all; no verified footer, no exit 0.
curl -s -X POST "$URL/v1/test/lax?hide=progress" >"$T/hide.json"
like "$(cat "$T/hide.json")" '"hide":"progress"' "the test relay loses output"
INV=$SENDER ax bob run --on box --timeout 60 -- echo lost \
    >"$T/lost.out" 2>"$T/lost.err"
st=$?
ok $([ $st -ne 0 ] && echo 0 || echo 1) "run fails (exit $st)"
lacks "$(cat "$T/lost.out")" lost "  the output was not shown"
like "$(cat "$T/lost.err")" "not the output the runner signed" \
    "  and it says the output is not what the runner signed"
lacks "$(cat "$T/lost.err")" "signed by runner box" "  no verified footer"
curl -s -X POST "$URL/v1/test/lax?hide=off" >"$T/hide.json"
like "$(cat "$T/hide.json")" '"hide":"off"' "the relay keeps output again"

# The relay turns hostile: it no longer checks what a role may post.
curl -s -X POST "$URL/v1/test/lax?roles=on" >"$T/lax.json"
like "$(cat "$T/lax.json")" '"roles":true' "the test relay skips its role check"
set -- $(XDG_CACHE_HOME="$T/c-eve" AIRLOX_INVITE="$OBSERVER" "$CRAFT" plain box)
JOB=$1
is "$2" posted "the relay stores a job an observer signed"

refused() { grep -q 'wrong_role' "$T/runner.log"; }
wait_for refused
ok $? "the runner refuses the item itself (wrong_role in its log)"
INV=$SENDER ax bob run --on box --timeout 60 -- echo after >"$T/after.out" \
    2>"$T/after.err"
is "$?:$(cat "$T/after.out")" "0:after" "the runner is still up: the next job runs"
grep -q -e "$JOB" "$T/rstate/audit.log" 2>/dev/null
ok $(test $? -ne 0 && echo 0 || echo 1) "the job was never admitted (not in the audit log)"
ls "$T/rwork" | grep -q "job-$JOB"
ok $(test $? -ne 0 && echo 0 || echo 1) "no folder was made for it"
INV=$SENDER ax bob --json result -- "$JOB" >"$T/res.json" 2>&1
st=$?
ok $(test $st -ne 0 && echo 0 || echo 1) "no result exists for it (result exits $st)"
ok $(grep -q '"status":"completed"' "$T/res.json" && echo 1 || echo 0) \
    "nothing says it completed"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/runner.log" | tail -20
fi
done_testing
