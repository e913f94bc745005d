#!/bin/sh
# churn.sh: 10,000 SSE streams (in three rounds) and 10,000 parked
# long-polls opened and dropped by their clients (FIN or reset):
# afterwards no stream, parked request or connection is left, the
# relay's descriptors are back where they were, its memory does not grow
# from round to round, and it still serves. Under ASan
# (--enable-sanitizers) LeakSanitizer runs at exit, so a leak makes the
# SIGTERM exit status non-zero. CHURN_N overrides the count.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
N=${CHURN_N:-10000}
S=$T/s
mkdir -p "$S"

start_relay --plain-http --max-connections 100000 \
    --max-connections-per-address 100000 --rate-limit 1000000 --max-wait 1
ok $? "relay starts"
sid=$("$CLI" create "$S" 3600)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" '^201 ' "a session"
"$CLI" cert "$S" carol observer
auth=$("$CLI" auth "$S" carol POST "/v1/sessions/$sid/participants" \
    "$S/carol.cert" "$ADDR")
r=$(http POST "/v1/sessions/$sid/participants" -H "Authorization: $auth" \
    --data-binary @"$S/carol.cert")
like "$r" '^201 ' "a participant"

fds() { ls "/proc/$RELAY_PID/fd" | wc -l; }
rss() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$RELAY_PID/status"; }
fd0=$(fds)
p="/v1/sessions/$sid/stream"
auth=$("$CLI" auth "$S" carol GET "$p" - "$ADDR")
# The streams in three rounds: after each, the descriptors are back where
# they were, and the memory of the last round is that of the one before.
k=$(( (N + 2) / 3 ))
for round in 1 2 3; do
	n=$(python3 "$top_srcdir/tests/relayd/churn.py" "$ADDR" "$p" "$auth" "$k")
	is "$n" "$k" "round $round: $k streams opened and dropped"
	wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"connections\":1,\"streams\":0,'"
	ok $? "round $round: every stream and connection was freed"
	wait_for sh -c "[ \$(ls /proc/$RELAY_PID/fd | wc -l) -le $((fd0 + 1)) ]"
	ok $? "round $round: descriptors back to $fd0 ($(fds))"
	eval "rss$round=\$(rss)"
done
if grep -q libasan "/proc/$RELAY_PID/maps"; then
	skip "memory flat from round to round" "ASan's allocator"
else
	[ $((rss3 - rss2)) -le 1024 ]
	ok $? "memory flat from round to round (${rss1}, ${rss2}, ${rss3} KiB)"
fi

p="/v1/sessions/$sid/log?after=2&wait=30"
auth=$("$CLI" auth "$S" carol GET "$p" - "$ADDR")
n=$(python3 "$top_srcdir/tests/relayd/churn.py" "$ADDR" "$p" "$auth" "$N")
is "$n" "$N" "$N long-polls parked and abandoned"
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"connections\":1,\"streams\":0,\"parked\":0}'"
ok $? "the server timers answered them; nothing is left"
r=$(http GET /v1/health)
like "$r" '^200 ' "still serving"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0 (no leak under LeakSanitizer)"
done_testing
