#!/bin/sh
# limits.sh: 413 for an oversized body and header (not a reset), 429 with
# Retry-After past the request rate, the connection caps (per address and
# total), and accepting paused, not spinning, when out of descriptors.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CONNS="python3 $top_srcdir/tests/relayd/conns.py"

start_relay --plain-http --max-body-size 4K --max-header-size 2K \
    --rate-limit 2 --max-connections-per-address 4 --max-connections 100
ok $? "relay starts with small limits"

head -c 100000 /dev/zero >"$T/big"
r=$(http POST /v1/sessions --data-binary @"$T/big" \
    -H 'Content-Type: application/octet-stream')
like "$r" '^413 ' "a 100 KB body over a 4K limit gets 413, not a reset"
r=$(http GET /v1/health -H "X-Big: $(head -c 3000 /dev/zero | tr '\0' a)")
like "$r" '^413 \{"error":"too_large","message":"request headers too large"' \
    "a 3 KB header over a 2K limit gets a JSON 413"
r=$(http GET /v1/health -H "X-Big: $(head -c 9000 /dev/zero | tr '\0' a)")
like "$r" '^(400|413) ' "a 9 KB header gets evhttp's own refusal (${r%% *})"
r=$(http GET /v1/health)
like "$r" '^200 ' "still serving after oversized requests"

stop_relay TERM

# Rate: 2/s with bursts of 4; health is exempt (probes), the rest is not.
# The test build holds its rate clock (POST /v1/test/clock?rate=hold), so
# exactly the burst passes however slowly a busy machine runs the requests.
TEST_RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
if [ -x "$TEST_RELAYD" ]; then
	PLAIN_RELAYD=$RELAYD
	RELAYD=$TEST_RELAYD
	start_relay --plain-http --rate-limit 2
	RELAYD=$PLAIN_RELAYD
	r=$(http POST "/v1/test/clock?rate=hold")
	like "$r" '^200 .*"rate_held":true' "the test relay holds its rate clock"
	codes=
	for i in 1 2 3 4 5; do
		code=$(curl -sS -o "$T/rl.body" -D "$T/rl.head" \
		    -w '%{http_code}' "$URL/v1/nothing-$i")
		codes="$codes $code"
	done
	is "$codes" " 404 404 404 404 429" \
	    "a burst of 4 passes, the fifth request gets 429"
	like "$(tr -d '\r' <"$T/rl.head" | grep -i '^Retry-After:')" \
	    '^Retry-After: 1$' "429 carries Retry-After in seconds (1 at 2/s)"
	like "$(cat "$T/rl.body")" '^\{"error":"rate_limited","message":' \
	    "429 has a JSON body rate_limited"
	r=$(http GET /v1/health)
	like "$r" '^200 ' "health is not rate limited"
	http POST "/v1/test/clock?rate=run" >/dev/null
	nothing_served() {
		[ "$(curl -sS -o /dev/null -w '%{http_code}' \
		    "$URL/v1/nothing")" = 404 ]
	}
	wait_for nothing_served
	ok $? "once time passes, the client is served again"
else
	skip "the request rate limit" "no $TEST_RELAYD (make check builds it)"
fi
stop_relay TERM

# Per-address connection cap: 4 held, the rest closed at once.
rm -f "$T/conns.out"
start_relay --plain-http --max-connections-per-address 4 \
    --max-connections 100
$CONNS "$ADDR" 6 "$T/conns.out" &
EXTRA_PIDS=$!
wait_for test -s "$T/conns.out"
is "$(cat "$T/conns.out")" "open=4 closed=2" \
    "6 connections from one address: 4 held, 2 closed"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/v1/health")
is "$code" "000" "a fifth connection from that address is refused"
kill "$EXTRA_PIDS"
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=
wait_for curl -fsS "$URL/v1/health"
ok $? "once they close, the address is served again"
wait_for sh -c "curl -sS '$URL/v1/health' | grep -q '\"connections\":1,'"
ok $? "the connection count goes back to 1"
stop_relay TERM

# Total cap.
rm -f "$T/conns.out"
start_relay --plain-http --max-connections 3
$CONNS "$ADDR" 5 "$T/conns.out" &
EXTRA_PIDS=$!
wait_for test -s "$T/conns.out"
is "$(cat "$T/conns.out")" "open=3 closed=2" \
    "5 connections over a total cap of 3: 3 held, 2 closed"
kill "$EXTRA_PIDS"
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=
wait_for curl -fsS "$URL/v1/health"
ok $? "served again below the total cap"
stop_relay TERM

# Out of descriptors: accepting pauses (logged), then resumes.
rm -f "$T/conns.out"
(ulimit -n 32 && start_relay --plain-http --max-connections 1000 \
    --max-connections-per-address 1000 && echo "$RELAY_PID" >"$T/pid" &&
    wait "$RELAY_PID")  &
SUB=$!
EXTRA_PIDS=$SUB
wait_for test -s "$T/pid"
RELAY_PID=$(cat "$T/pid")
ADDR=$(head -n 1 "$T/port")
URL=http://$ADDR
$CONNS "$ADDR" 40 "$T/conns.out" &
HOLD=$!
EXTRA_PIDS="$SUB $HOLD"
wait_for sh -c "grep -q 'pausing accepts' '$T/relay.log'"
ok $? "EMFILE pauses accepting (logged)"
cpu=$(ps -o time= -p "$RELAY_PID" | tr -d ' ')
kill "$HOLD"
wait "$HOLD" 2>/dev/null
wait_for curl -fsS "$URL/v1/health"
ok $? "accepting resumes once descriptors are free"
like "$cpu" '^0*:?0*:0[0-2]' "no busy loop while paused (cpu $cpu)"
kill -TERM "$RELAY_PID"
wait "$SUB"
is $? 0 "SIGTERM: exit status 0"
RELAY_PID=
done_testing
