#!/bin/sh
# code.sh: transfer codes between two client processes: the round trip
# hands over the invite; a wrong code fails, is counted, and three wrong
# ones cancel the code; a code whose creator was killed ends receive with
# a message (it used to wait for as long as the code lived at the relay).
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
has_endpoint POST /v1/codes || skip_all "relay lacks POST /v1/codes"

create_session alice || skip_all "session create failed"
INV=$OWNER ax alice --json session code sender >"$T/code.json" 2>"$T/code.err" &
CP=$!
EXTRA_PIDS="$EXTRA_PIDS $CP"
wait_for test -s "$T/code.json"
ok $? "session code prints a code"
code=$(head -n 1 "$T/code.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
like "$code" '^[1-9][0-9]*-[a-z]+-[a-z]+$' "the code looks like 7-guitar-orbit"
XDG_CACHE_HOME="$T/c-bob" "$AIRLOX" --json receive "$code" >"$T/recv.json" 2>"$T/recv.err"
ok $? "receive CODE on another client"
is "$(json_get "$T/recv.json" 'j["invite"]')" "$SENDER" "it prints the sender invite"
wait $CP
is $? 0 "session code exits 0 once the code is used"
like "$(tail -n 1 "$T/code.json")" '"event":"used"' "and says the code was used"
INV=$(json_get "$T/recv.json" 'j["invite"]') ax bob send text "via code" >/dev/null
ok $? "the received invite works"

# Wrong codes: each fails, three cancel the code.
INV=$OWNER ax alice --json session code observer >"$T/code2.json" 2>"$T/code2.err" &
CP=$!
EXTRA_PIDS="$EXTRA_PIDS $CP"
wait_for test -s "$T/code2.json"
code=$(head -n 1 "$T/code2.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
np=${code%%-*}
w1=$(echo "$code" | cut -d- -f2)
for bad in 1 2 3; do
	if [ "$w1" = guitar ]; then other=orbit; else other=guitar; fi
	XDG_CACHE_HOME="$T/c-eve" "$AIRLOX" receive "$np-$other-$other" \
	    >/dev/null 2>"$T/bad$bad.err"
	is $? 8 "wrong code $bad fails with exit 8"
done
wait $CP
is $? 8 "the creator gives up after three wrong codes (exit 8)"
like "$(cat "$T/code2.err")" 'cancelled after 3' "and says the code was cancelled"
XDG_CACHE_HOME="$T/c-bob" "$AIRLOX" receive "$code" >/dev/null 2>"$T/late.err"
st=$?
ok $([ $st -eq 4 ] || [ $st -eq 8 ]; echo $?) "the right code no longer works after that"

# The creator is killed; its code stays on the relay.
AIRLOX_INVITE=$OWNER "$AX" alice --json session code sender \
    >"$T/code3.json" 2>"$T/code3.err" &
CP=$!
EXTRA_PIDS="$EXTRA_PIDS $CP"
wait_for test -s "$T/code3.json"
code=$(head -n 1 "$T/code3.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["code"])')
kill -9 "$CP"
wait "$CP" 2>/dev/null
timeout 300 env XDG_CACHE_HOME="$T/c-dan" "$AIRLOX" receive --timeout 3s \
    "$code" >"$T/gone.out" 2>"$T/gone.err"
is $? 4 "its creator killed, receive ends (exit 4)"
like "$(cat "$T/gone.err")" 'did not answer within 3s.*no longer running' \
    "and says the creator is gone"
is "$(cat "$T/gone.out")" "" "printing no invite"
XDG_CACHE_HOME="$T/c-dan" "$AIRLOX" receive --timeout 0s "$code" \
    >/dev/null 2>"$T/t0.err"
is $? 2 "--timeout 0s is a usage error"
done_testing
