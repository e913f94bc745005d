#!/bin/sh
# rollback-runner.sh: a runner keeps the newest manifest it verified in its
# state dir and refuses a relay that rolls the session back. The owner
# approves the runner (version 2), then revokes mallory (version 3); the
# runner sees version 3. A hostile relay (tests/client/hostile-proxy.py,
# mode rollback:2) then serves the session as it was at version 2, where
# mallory was still a sender, with a job mallory posted to it. Without the
# check the runner would run that job; it refuses to start instead, and
# nothing of mallory's runs.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"

# Clients sign for the proxy's address (127.0.0.1, another port), which
# the proxy passes on as Host: a name of the relay.
start_relay --public-name 127.0.0.1 || skip_all "the relay did not start"
python3 "$top_srcdir/tests/client/hostile-proxy.py" "$URL" "$T/mode" \
    "$T/pport" 2>"$T/proxy.log" &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/pport" || skip_all "the proxy did not start"
URL=http://$(head -n 1 "$T/pport")
export AIRLOX_RELAY="$URL"
echo none >"$T/mode"

create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session (through the proxy)"
SID=$(json_get "$T/create.json" 'j["sid"]')
PIN=$T/rstate/airlox/sessions/$SID/manifest
mkdir -p "$T/rwork" "$T/home"
start_runner() {
	HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box \
	    --state-dir "$T/rstate" --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
start_runner
waiting() { grep -q 'waiting for the owner' "$T/runner.log"; }
wait_for waiting
INV=$OWNER ax alice session approve box >/dev/null 2>&1
ok $? "the owner approves the runner (version 2)"
INV=$SENDER ax mallory --json run --on box --timeout 60 -- 'echo hello' \
    >"$T/first.json" 2>&1
is "$(json_get "$T/first.json" 'j.get("status")')" completed \
    "mallory's first job runs while mallory is in good standing"
INV=$OWNER ax alice session revoke mallory >/dev/null 2>"$T/revoke.err"
ok $? "the owner revokes mallory (version 3)"
seen3() { [ "$(json_get "$PIN" 'j["ver"]')" = 3 ]; }
wait_for seen3
ok $? "the runner verifies version 3 and keeps it in its state dir"
is "$(stat -c %a "$PIN")" 600 "in a file of mode 0600"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
ok $? "the runner stops"

# The hostile relay: back to version 2; mallory's job is kept by it.
echo rollback:2 >"$T/mode"
JM=$(INV=$SENDER ax mallory run --on box --no-wait -- 'echo MALLORY-RAN' \
    2>"$T/jm.err")
ok $? "mallory posts a job to the rolled-back session"
start_runner
gone() { ! kill -0 "$RUNNER_PID" 2>/dev/null; }
decided() { gone || grep -q -e "$JM" "$T/rstate/audit.log" 2>/dev/null; }
wait_for decided
gone
ok $? "the runner refuses to start on the rolled-back session"
kill -TERM "$RUNNER_PID" 2>/dev/null
wait "$RUNNER_PID"
like "$(cat "$T/runner.log")" 'up to version 2, but version 3 was verified' \
    "and says why (manifest_rollback)"
grep -q -e "$JM" "$T/rstate/audit.log" 2>/dev/null
[ $? -ne 0 ]
ok $? "mallory's job was never decided, let alone run"
is "$(python3 - "$T/mode.stash" <<'PY'
import base64, json, os, sys
kinds = []
if os.path.exists(sys.argv[1]):
    for line in open(sys.argv[1]):
        b = json.loads(line)["body"]
        kinds.append(json.loads(base64.urlsafe_b64decode(
            b + "=" * (-len(b) % 4)))["kind"])
print(" ".join(kinds))
PY
)" job "the hostile relay got mallory's job and no result for it"

echo none >"$T/mode"
start_runner
INV=$OWNER ax alice --json run --on box --timeout 60 -- 'echo owner' \
    >"$T/owner.json" 2>&1
is "$(json_get "$T/owner.json" 'j.get("status")')" completed \
    "through an honest relay the runner starts and runs the owner's job"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/runner.log" | tail -30
fi
done_testing
