#!/bin/sh
# expiry.sh: a transfer code lives 10 minutes; a session past its lifetime
# answers 410 session_expired until the sweep has deleted it, then 404.
# Uses tests/relayd/airlox-relayd-test (built with -DRELAY_TEST), whose
# hidden POST /v1/test/clock moves the relay's expiry clock forward and can
# hold the sweep; signatures are still checked against the real clock.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
[ -x "$RELAYD" ] || skip_all "no $RELAYD (make check builds it)"
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

clock() {	# clock QUERY: move the test clock
	http POST "/v1/test/clock?$1"
}
open_code() {
	"$CLI" code-open "$S" alice sender >"$T/open.json"
	r=$(call alice POST /v1/codes "$T/open.json")
	code=$(echo "$r" | sed -n 's/^201 {"nameplate":\([0-9]*\),.*/\1/p')
}

start_relay --plain-http
new_session
join alice:owner bob:sender
like "$r" '^201 ' "a one-hour session with an owner and a sender"
like "$(cat "$T/relay.log")" 'test build: POST /v1/test/clock' \
    "the test build says so in its log"

# Transfer codes: 10 minutes.
open_code
like "$r" '^201 \{"nameplate":[0-9]+,"expires":[0-9]+\}$' "a code"
# (Whole seconds, and this machine may be slow: 10 s of margin before.)
r=$(clock "advance=590&sweep=off")
is "$r" '200 {"skew":590,"sweep":false,"rate_held":false}' "the clock moves 9 min 50 s on"
like "$(http GET "/v1/codes/$code")" '^200 ' "the code still works"
clock "advance=11" >/dev/null
like "$(http GET "/v1/codes/$code")" '^410 \{"error":"expired"' \
    "at 10 min 1 s: 410 expired"
like "$(http GET "/v1/codes/$code")" '^404 ' "and then it is gone (404)"
r=$(http POST "/v1/codes/$code/msgs" \
    --data-binary '{"side":"a","seq":1,"data":"late"}')
like "$r" '^404 ' "no message reaches an expired code"
open_code
like "$r" '^201 ' "a new code is opened after the expired one"
like "$(http GET "/v1/codes/$code")" '^200 ' "and works"

# The session: alive, then past its hour, 410 session_expired while the
# sweep is held (the window between its end and its deletion), and 404 once
# the sweep deleted it.
r=$(http GET "/v1/sessions/$sid/manifest")
like "$r" '^200 ' "at 10 min the session is alive"
clock "advance=2400" >/dev/null
"$CLI" item "$S" bob text
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "at 50 min a post succeeds"
clock "advance=600" >/dev/null
r=$(http GET "/v1/sessions/$sid/manifest")
like "$r" '^410 \{"error":"session_expired"' \
    "past its lifetime: 410 session_expired"
"$CLI" item "$S" bob text
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^410 \{"error":"session_expired"' "a post too"
r=$(call bob GET "/v1/sessions/$sid/log?after=0" -)
like "$r" '^410 \{"error":"session_expired"' "and a read"
grep -q 'expired, data deleted' "$T/relay.log"
is $? 1 "the sweep is held: nothing deleted yet"
clock "sweep=on" >/dev/null
wait_for grep -q "session $sid: expired, data deleted" "$T/relay.log"
ok $? "the sweep deletes the session once it runs"
gone() {
	[ "$(curl -s -o /dev/null -w '%{http_code}' \
	    "$URL/v1/sessions/$sid/manifest")" = 404 ]
}
wait_for gone
ok $? "after the deletion: 404"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit 0"
done_testing
