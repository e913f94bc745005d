#!/bin/sh
# outage.sh: `airlox run` rides out a relay outage. The relay stops while
# a job runs and stays away until both the client and the runner have
# given up on their first tries (the job ends meanwhile); then it comes
# back on the same port and data dir. The client says on stderr that it is
# retrying, resumes from its cursor and prints the whole output and the
# job's exit code; the runner posts the output and result it kept. And a
# job that no runner takes before its --wait-runner time ends `run` at
# once with exit 122, long before --timeout. With the real relay, runner
# and client.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"

start_fixed_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 300 --memory 256
ok $? "an execute session"

runner_up box
ok $? "a runner joined and was approved"

# The job waits for a file that appears only once the relay is down.
INV=$SENDER ax bob run --timeout 300s --on box -- sh -c \
    'echo begin; while [ ! -e "$0" ]; do sleep 0.1; done; seq 1 5000; exit 7' \
    "$T/go" >"$T/run.out" 2>"$T/run.err" &
RUN_PID=$!
wait_for grep -q '^begin$' "$T/run.out"
ok $? "the job runs and its first output came"

kill "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
RELAY_PID=
touch "$T/go"
# Down until the client has given up on a whole round of tries and the
# runner has the job's end to post: more than a few seconds (no bare sleep).
long_wait_for() {	# up to 60 s
	WAIT_S=60 wait_for "$@"
}
long_wait_for grep -q 'relay is unavailable.*retrying' "$T/run.err"
ok $? "the client says on stderr that it is retrying"
long_wait_for grep -q 'waits for the relay' "$T/runner-box.log"
ok $? "the job ended while the relay was away; the runner keeps its output"
kill -0 "$RUN_PID" 2>/dev/null
ok $? "airlox run is still waiting"

start_fixed_relay
ok $? "the relay comes back on the same port and data dir"
wait "$RUN_PID"
is $? 7 "airlox run ends with the job's exit code"
seq 1 5000 | sed '1i begin' >"$T/want"
cmp -s "$T/run.out" "$T/want"
ok $? "with the whole output, nothing lost or repeated"
like "$(cat "$T/run.err")" 'relay is back; resuming after event [0-9]+' \
    "it says it resumed from its cursor"
like "$(cat "$T/run.err")" 'completed · exit 7 .* signed by runner box' \
    "and the verified footer"

# --wait-runner: the runner is gone, so nothing takes the job.
kill "$RUNNER_PID"
wait "$RUNNER_PID" 2>/dev/null
INV=$SENDER ax bob run --timeout 120s --wait-runner 2s --on box -- true \
    >"$T/exp.out" 2>"$T/exp.err"
is $? 122 "a job no runner took within --wait-runner: exit 122"
like "$(cat "$T/exp.err")" 'no runner took job .* within --wait-runner' \
    "at once, saying why (not after --timeout)"
done_testing
