#!/bin/sh
# codes.sh: transfer codes, the relay's side. The owner opens a code; the
# claimant and the creator exchange messages through the relay (long-poll);
# a wrong guess is reported (signed) and counted; three reports cancel a
# code; ten failures from one address block its guesses; the messages are
# never written to the database (nothing stored lets anyone test guesses
# offline; the CPace messages themselves are checked by libairlox's tests).
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"


open_code() {
	"$CLI" code-open "$S" alice sender >"$T/open.json"
	r=$(call alice POST /v1/codes "$T/open.json")
	code=$(echo "$r" | sed -n 's/^201 {"nameplate":\([0-9]*\),.*/\1/p')
}

fail_code() {	# fail_code N: the creator reports one failure
	"$CLI" code-fail "$S" alice "$1" >"$T/fail.json"
	call alice POST "/v1/codes/$1/fail" "$T/fail.json"
}

start_relay --plain-http
new_session
join alice:owner bob:sender
like "$r" '^201 ' "a session with an owner and a sender"

open_code
like "$r" '^201 \{"nameplate":[0-9]+,"expires":[0-9]+\}$' "the owner opens a code"
"$CLI" code-open "$S" bob sender >"$T/open2.json"
r=$(call bob POST /v1/codes "$T/open2.json")
like "$r" '^403 ' "a sender cannot open a code"
r=$(http GET "/v1/codes/$code")
like "$r" "^200 \\{\"sid\":\"$sid\",\"role\":\"sender\",\"host\":\"$ADDR\",\"expires\":[0-9]+\\}\$" \
    "the claimant reads the code's session and role"
r=$(http GET /v1/codes/0)
like "$r" '^404 ' "an unknown nameplate: 404"

r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":1,"data":"Ya-secret-looking-message"}')
is "$r" "201 {}" "the claimant posts message 1"
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":1,"data":"again"}')
like "$r" '^409 \{"error":"replayed"' "the same sequence again: 409"
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":3,"data":"skip"}')
like "$r" '^409 \{"error":"bad_order"' "a skipped sequence: 409"
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":2}')
like "$r" '^400 \{"error":"missing_field"' "a message without data: 400"
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"c","seq":2,"data":"x"}')
like "$r" '^400 ' "an unknown side: 400"
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"b","seq":1,"data":"Yb"}')
like "$r" '^401 \{"error":"not_signed"' "the creator's side must be signed"
r=$(http GET "/v1/codes/$code/msgs?side=a&after=0&wait=5")
like "$r" '^200 \{"msgs":\[\{"side":"a","seq":1,"data":"Ya-secret-looking-message"\}\]\}$' \
    "the creator reads the claimant's message"
for q in "after=%2B0" "after=%200" "after=-0" "after=00" "wait=05" \
    "after=99999999999999999999"; do
	r=$(http GET "/v1/codes/$code/msgs?side=a&$q")
	like "$r" '^400 ' "?$q: 400 (a number is digits only: no sign, space or leading zero)"
done
r=$(http GET "/v1/codes/0$code/msgs?side=a&after=0")
like "$r" '^404 ' "a nameplate spelt with a leading zero is not the same code"

curl -sS -o "$T/poll.body" -w '%{http_code}' \
    "$URL/v1/codes/$code/msgs?side=b&after=0&wait=20" >"$T/poll.code" &
poll=$!
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"parked\":1}'"
ok $? "the claimant waits for the creator's answer (parked)"
printf '{"side":"b","seq":1,"data":"Yb-and-confirmation"}' >"$T/mb.json"
r=$(call alice POST "/v1/codes/$code/msgs" "$T/mb.json")
is "$r" "201 {}" "the creator answers, signed"
wait "$poll"
is "$(cat "$T/poll.code")" 200 "the parked claimant is answered at once"
like "$(cat "$T/poll.body")" '"data":"Yb-and-confirmation"' "with the message"

r=$(fail_code "$code")
is "$r" '200 {"failures":1,"cancelled":false}' "a failure report is counted"
r=$(fail_code "$code")
is "$r" '200 {"failures":2,"cancelled":false}' "a second one"
r=$(fail_code "$code")
is "$r" '200 {"failures":3,"cancelled":true}' "the third cancels the code"
r=$(http GET "/v1/codes/$code")
like "$r" '^404 ' "a cancelled code is gone"

# Ten failures from this address across codes block its guesses.
for k in 1 2 3; do
	open_code
	http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":1,"data":"guess"}' >/dev/null
	n=$([ $k -lt 3 ] && echo 3 || echo 1)
	while [ "$n" -gt 0 ]; do
		fail_code "$code" >/dev/null
		n=$((n - 1))
	done
done
open_code
r=$(http POST "/v1/codes/$code/msgs" --data-binary '{"side":"a","seq":1,"data":"guess"}')
like "$r" '^429 \{"error":"too_many_failures"' \
    "after 10 failures from one address, its next guess: 429"

r=$(http DELETE "/v1/codes/$code")
like "$r" '^401 ' "deleting a code needs the creator's signature"
r=$(call alice DELETE "/v1/codes/$code" -)
is "$r" '200 {"deleted":true}' "the creator deletes its code"
r=$(http GET "/v1/codes/$code")
like "$r" '^404 ' "and it is gone"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
if grep -aq -e 'secret-looking' -e 'Yb-and-conf' "$T/data/data.mdb"; then
	ok 1 "code messages never reach the database"
else
	ok 0 "code messages never reach the database"
fi
done_testing
