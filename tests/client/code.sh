#!/bin/sh
# code.sh: transfer codes between two client processes: the round trip
# hands over the invite; a wrong code fails, is counted, and three wrong
# ones cancel the code.
. "${top_srcdir:-.}/tests/client/lib.sh"
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
done_testing
