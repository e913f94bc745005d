#!/bin/sh
# churn.sh: 10,000 SSE streams and 10,000 parked long-polls opened and
# dropped by their clients (FIN or reset): afterwards no stream, parked
# request or connection is left, and the relay still serves. Under ASan
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

p="/v1/sessions/$sid/stream"
auth=$("$CLI" auth "$S" carol GET "$p" - "$ADDR")
n=$(python3 "$top_srcdir/tests/relayd/churn.py" "$ADDR" "$p" "$auth" "$N")
is "$n" "$N" "$N streams opened and dropped"
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"connections\":1,\"streams\":0,'"
ok $? "every stream and connection was freed"

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
