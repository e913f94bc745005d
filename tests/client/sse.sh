#!/bin/sh
# sse.sh: watch follows the relay's Server-Sent Events stream and resumes
# after the relay restarts (Last-Event-ID), showing every item exactly once;
# it stops when the owner closes the session.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
has_endpoint GET /v1/sessions/x/stream || skip_all "relay lacks GET /v1/sessions/{sid}/stream"
PORT=${URL##*:}

create_session alice || skip_all "session create failed"
INV=$OWNER ax alice session show >/dev/null
mkdir "$T/save"
AIRLOX_INVITE=$OWNER "$AX" alice --json watch --save "$T/save" --timeout 600 \
    >"$T/w.json" 2>"$T/w.err" &
W=$!
EXTRA_PIDS="$EXTRA_PIDS $W"
# Without --all, watch shows what comes after it started streaming.
wait_for streams 1
ok $? "watch is streaming"
INV=$SENDER ax bob send text "before the restart" >/dev/null
wait_for grep -q 'before the restart' "$T/w.json"
ok $? "watch shows a new item as it arrives"

# A file while streaming: saved once all its chunks are stored.
head -c 1200000 /dev/urandom >"$T/live.bin"
INV=$SENDER ax bob send file "$T/live.bin" >/dev/null
wait_for test -f "$T/save/live.bin"
ok $? "watch --save saves a file that arrives while streaming"
cmp -s "$T/live.bin" "$T/save/live.bin"
ok $? "byte for byte"

kill -TERM "$RELAY_PID"
wait "$RELAY_PID"
ok $? "the relay stops"
"$RELAYD" --listen "127.0.0.1:$PORT" --plain-http --data "$T/data" \
    --rate-limit 100000 >>"$T/relay.log" 2>&1 &
RELAY_PID=$!
wait_for health
ok $? "the relay starts again on the same port with the same data"
INV=$SENDER ax bob send text "after the restart" >/dev/null
ok $? "an item is posted after the restart"
wait_for grep -q 'after the restart' "$T/w.json"
ok $? "watch resumed and shows it"
is "$(grep -c 'before the restart' "$T/w.json")" 1 "nothing is shown twice"

INV=$OWNER ax alice session close >/dev/null
wait $W
is $? 0 "watch ends when the session is closed"
like "$(tail -n 1 "$T/w.json")" '"event":"closed"' "and says so"
json_lines "$T/w.json"
ok $? "watch --json parses"
done_testing
