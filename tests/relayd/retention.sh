#!/bin/sh
# retention.sh: with --retention-count 3 the sweep drops the oldest items
# (event, index, chunks) and keeps manifests and joins; a reader whose
# cursor is older than what is kept gets 410 cursor_gone with the oldest
# cursor to resume from, on the log and on the stream.
#
# The relay is the test build (tests/relayd/airlox-relayd-test): its sweep
# is held while the items are posted (POST /v1/test/clock?sweep=off), so
# the first sweep sees them all, however slowly a busy machine posts them.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
[ -x "$RELAYD" ] || skip_all "no $RELAYD (make check builds it)"
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

start_relay --plain-http --retention-count 3 --rate-limit 100000
r=$(http POST "/v1/test/clock?sweep=off")
like "$r" '^200 .*"sweep":false' "the sweep is held"
new_session
join bob:sender carol:observer
like "$r" '^201 \{"cursor":3\}' "a session with two participants"
head -c 1000 /dev/urandom >"$T/small"
"$CLI" item "$S" bob file "$T/small"
first=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
r=$(call bob PUT "/v1/sessions/$sid/items/$first/chunks/0" "$S/chunk.0")
like "$r" '^201 ' "an item with a chunk (cursor 4)"
for k in 1 2 3 4; do
	"$CLI" item "$S" bob text
	r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
done
like "$r" '^201 \{"cursor":9\}' "four more items (the complete event is 5)"
# The sweep runs every 5 s once let go: wait for the log to say the cursor
# is gone.
http POST "/v1/test/clock?sweep=on" >/dev/null
wait_for sh -c "'$CLI' auth '$S' carol GET '/v1/sessions/$sid/log?after=0' - \
    '$ADDR' >'$T/a' && curl -sS -H \"Authorization: \$(cat '$T/a')\" \
    '$URL/v1/sessions/$sid/log?after=0' | grep -q cursor_gone"
ok $? "the sweep dropped the oldest items"
r=$(call carol GET "/v1/sessions/$sid/log?after=0" -)
like "$r" '^410 \{"error":"cursor_gone","message":"[^"]*","oldest":7\}$' \
    "an old cursor: 410 cursor_gone, resume from 7 (items 4 and 6 dropped)"
r=$(call carol GET "/v1/sessions/$sid/log?after=6" -)
like "$r" '^200 \{"events":\[\{"cursor":7,"type":"item".*"next":9\}$' \
    "from the oldest kept cursor: the newest items"
is "$(echo "$r" | grep -o '"type":"item"' | wc -l)" 3 "three of them"
r=$(call carol GET "/v1/sessions/$sid/items/$first" -)
like "$r" '^404 ' "a dropped item is gone"
r=$(call carol GET "/v1/sessions/$sid/items/$first/chunks/0" -)
like "$r" '^404 ' "and so is its chunk"
r=$(call carol GET "/v1/sessions/$sid/stream" - -H 'Last-Event-ID: 2')
like "$r" '^410 \{"error":"cursor_gone"' "the stream says so too"
r=$(http GET "/v1/sessions/$sid/manifest")
like "$r" '^200 \{"manifests"' "the manifest stays"
r=$(call carol GET "/v1/sessions/$sid/participants" -)
like "$r" '^200 \{"participants":\[.*,.*\]\}$' "and so do the participants"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
