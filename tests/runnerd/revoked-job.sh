#!/bin/sh
# revoked-job.sh: revocation reaches jobs already posted. A sender posts
# two jobs for a runner that is away; the owner revokes that sender; the
# runner starts, catches up on the log, and must refuse (signed,
# revoked) the revoked sender's job while it still runs the job of a
# sender in good standing posted at the same time. Before the fix the
# runner decided each job as it met it in the log, when the revocation
# was not yet in its view, and ran both.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session"
mkdir -p "$T/rwork" "$T/home"
start_runner() {
	HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box \
	    --state-dir "$T/rstate" --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
start_runner
joined() { grep -q 'waiting for the owner' "$T/runner.log"; }
wait_for joined
INV=$OWNER ax alice session approve box >/dev/null 2>&1
ok $? "the owner approves the runner"
INV=$SENDER ax mallory --json run --on box --timeout 60 -- echo hello \
    >"$T/first.json" 2>&1
is "$(json_get "$T/first.json" 'j.get("status")')" completed \
    "mallory's first job runs while mallory is in good standing"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
ok $? "the runner stops"

JM=$(INV=$SENDER ax mallory run --on box --no-wait -- echo MALLORY-RAN 2>"$T/jm.err")
ok $? "while it is away, mallory posts a job"
JB=$(INV=$SENDER ax bob run --on box --no-wait -- echo BOB-RAN 2>"$T/jb.err")
ok $? "and so does bob"
INV=$OWNER ax alice session revoke mallory >/dev/null 2>"$T/revoke.err"
ok $? "the owner revokes mallory"

start_runner
INV=$SENDER ax bob --json result --wait 60s -- "$JB" >"$T/rb.json" 2>&1
is "$(json_get "$T/rb.json" 'j.get("status"), j.get("stdout")')" \
    "('completed', 'BOB-RAN\\n')" "bob's job, posted while the runner was away, runs"
INV=$OWNER ax alice --json result --wait 60s -- "$JM" >"$T/rm.json" 2>&1
is "$(json_get "$T/rm.json" 'j.get("status"), j.get("reason")')" \
    "('refused', 'revoked')" "mallory's job is refused: revoked"
like "$(json_get "$T/rm.json" 'j.get("stderr")')" 'revoked' "saying the key was revoked"
ok $(grep -q MALLORY-RAN "$T/rm.json" && echo 1 || echo 0) "it never ran"
grep -e "$JM" "$T/rstate/audit.log" | grep -q 'revoked'
ok $? "the audit log records the refusal"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/runner.log" | tail -20
fi
done_testing
