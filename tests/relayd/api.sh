#!/bin/sh
# api.sh: the session API against a real relay, with curl as the client and
# relay-cli (libairlox) signing: create, manifest, join, items, the log with
# long-polling, the SSE stream with resume, chunks, receipts, revocation,
# bad signatures and clock skew, close (no key left in LMDB, by mdb_dump),
# expiry, the creation token and the disk watermark.
# SCHEME=https runs it over TLS with a test CA.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"


# no_keys SIDHEX: no key of the session in any database (mdb_dump).
no_keys() {
	for db in sessions items itemidx chunks participants receipts jobs; do
		mdb_dump -s "$db" "$T/data" 2>/dev/null | grep -q "^ $1" &&
		    return 1
	done
	return 0
}

if [ "${SCHEME:-http}" = https ]; then
	need openssl
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout "$T/key.pem" -subj "/CN=127.0.0.1" \
	    -addext "subjectAltName=IP:127.0.0.1" -days 2 \
	    -out "$T/cert.pem" 2>/dev/null || skip_all "openssl failed"
	CURL_TLS="--cacert $T/cert.pem"
	MODE="--cert $T/cert.pem --key $T/key.pem"
else
	MODE=--plain-http
fi

start_relay $MODE --timeout 2 --heartbeat 1 --max-wait 600
ok $? "relay starts (${SCHEME:-http})"

sid=$("$CLI" create "$S" 3600)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" "^201 \\{\"sid\":\"$sid\",\"expires\":[1-9][0-9]*,\"cursor\":1\\}$" \
    "create: 201 with the session id libairlox derived, its end of life and cursor 1"
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" '^409 \{"error":"exists"' "the same manifest again: 409 exists"
r=$(http GET "/v1/sessions/$sid/manifest")
is "$(printf '%s' "$r" | sed 's/,"expires":[0-9]*}$/}/')" \
    "200 {\"manifests\":[$(cat "$S/manifest.json")]}" \
    "GET manifest: every version, verbatim"
like "$r" ',"expires":[1-9][0-9]*\}$' "and when the relay will delete the session"
r=$(http GET /v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/manifest)
like "$r" '^404 \{"error":"not_found"' "an unknown session: 404"
r=$(http GET /v1/sessions/not-base64!/manifest)
like "$r" '^404 ' "a malformed session id: 404"
# Flip one character of the signature (a base64url letter for another).
python3 -c 'import sys
s = open(sys.argv[1]).read(); i = s.index("\"sig\":\"") + 7
sys.stdout.write(s[:i] + ("B" if s[i] == "A" else "A") + s[i + 1:])' \
    "$S/manifest.json" >"$T/badman.json"
r=$(http POST /v1/sessions --data-binary @"$T/badman.json")
like "$r" '^40[01] \{"error":"(bad_signature|bad_base64)"' \
    "a manifest with a broken signature is refused"
printf '{"v":1,' >"$T/trunc.json"
r=$(http POST /v1/sessions --data-binary @"$T/trunc.json")
like "$r" '^400 \{"error":"bad_json"' "truncated JSON: 400 bad_json"

for who in alice:owner bob:sender carol:observer dave:sender; do
	"$CLI" cert "$S" "${who%%:*}" "${who#*:}" || exit 1
done
r=$(call alice POST "/v1/sessions/$sid/participants" "$S/alice.cert")
is "$r" '201 {"cursor":2}' "the owner joins with its certificate"
r=$(call bob POST "/v1/sessions/$sid/participants" "$S/bob.cert")
is "$r" '201 {"cursor":3}' "a sender joins"
r=$(call carol POST "/v1/sessions/$sid/participants" "$S/carol.cert")
is "$r" '201 {"cursor":4}' "an observer joins"
r=$(call bob POST "/v1/sessions/$sid/participants" "$S/bob.cert")
like "$r" '^409 \{"error":"exists"' "joining twice: 409 exists"
r=$(call dave POST "/v1/sessions/$sid/participants" "$S/bob.cert")
like "$r" '^40[13] ' "a certificate joined with another key's signature: refused"
r=$(call bob GET "/v1/sessions/$sid/participants" -)
like "$r" '^200 \{"participants":\[\{"cert":\{"v":1,"t":"cert".*"last_seq":0' "participants list: each certificate with its newest item"

"$CLI" item "$S" bob text
cp "$S/item.json" "$T/item1.json"
r=$(http POST "/v1/sessions/$sid/items" --data-binary @"$S/item.json")
is "$r" '201 {"cursor":5}' \
    "a sender posts an item; no request signature: the item's own is enough"
r=$(call bob POST "/v1/sessions/$sid/items" "$T/item1.json")
like "$r" '^409 \{"error":"replayed"' "the same item again: 409 replayed"
"$CLI" item "$S" carol text
r=$(call carol POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^403 \{"error":"wrong_role"' "an observer may not post text"
cp "$S/bob.seq" "$T/bob.seq"
cp "$S/bob.prev" "$T/bob.prev"
"$CLI" item "$S" bob text
# bob's next item with the owner's key put in its envelope: the relay
# checks the signature with the key the item names, which fails.
okey=$(sed 's/.*"key":"\([^"]*\)".*/\1/' "$S/manifest.json")
sed "s/\"key\":\"[^\"]*\"/\"key\":\"$okey\"/" "$S/item.json" >"$T/forged.json"
r=$(http POST "/v1/sessions/$sid/items" --data-binary @"$T/forged.json")
like "$r" '^401 \{"error":"bad_signature"' \
    "an item naming another participant's key: 401 bad_signature"
cp "$T/bob.seq" "$T/bob.prev" "$S/"
"$CLI" item "$S" dave text
r=$(call dave POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^403 \{"error":"not_a_participant"' "a key that never joined: 403"
r=$(call dave GET "/v1/sessions/$sid/log" -)
like "$r" '^403 \{"error":"not_a_participant"' "and it cannot read the log"
r=$(http GET "/v1/sessions/$sid/log")
like "$r" '^401 \{"error":"not_signed"' "an unsigned read: 401 not_signed"
auth=$("$CLI" auth "$S" bob GET "/v1/sessions/$sid/other" - "$ADDR")
r=$(http GET "/v1/sessions/$sid/log" -H "Authorization: $auth")
like "$r" '^401 \{"error":"bad_signature"' "a signature over another path: 401"
auth=$(SKEW=900 "$CLI" auth "$S" bob GET "/v1/sessions/$sid/log" - "$ADDR")
r=$(http GET "/v1/sessions/$sid/log" -H "Authorization: $auth")
like "$r" '^401 \{"error":"clock_skew","message":"[^"]*","server_time":[0-9]+\}$' \
    "a request 900 s ahead: 401 clock_skew with server_time"
r=$(http GET "/v1/sessions/$sid/log" -H "Authorization: Airlox garbage")
like "$r" '^40[01] ' "a malformed Authorization header is refused"

r=$(call carol GET "/v1/sessions/$sid/log?after=0" -)
like "$r" '^200 \{"events":\[\{"cursor":1,"type":"manifest","data":\{.*\{"cursor":5,"type":"item","data":\{"v":1,"t":"item".*\],"next":5\}$' \
    "the log: manifest, joins and the item, in cursor order"
r=$(call carol GET "/v1/sessions/$sid/log?after=3&limit=1" -)
like "$r" '^200 \{"events":\[\{"cursor":4,"type":"join".*\],"next":4\}$' \
    "after and limit page through the log"
r=$(call carol GET "/v1/sessions/$sid/log?after=x" -)
like "$r" '^400 ' "a bad cursor: 400"
for q in "after=03" "limit=%2B1" "after=%203" "after=18446744073709551616"; do
	r=$(call carol GET "/v1/sessions/$sid/log?$q" -)
	like "$r" '^400 ' "?$q: 400 (digits only: no sign, space or leading zero)"
done

# Long-poll: nothing new answers 204 when the (capped) wait ends ...
r=$(call carol GET "/v1/sessions/$sid/log?after=5&wait=1" -)
is "$r" "204 " "a long-poll with nothing new: 204 after the wait"
# ... and a new event answers a parked poll at once.
"$CLI" item "$S" bob text
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/log?after=5&wait=600" - \
    "$ADDR")
curl -sS $CURL_TLS -o "$T/poll.body" -w '%{http_code}' \
    -H "Authorization: $auth" "$URL/v1/sessions/$sid/log?after=5&wait=600" \
    >"$T/poll.code" &
poll=$!
wait_for sh -c "curl -s $CURL_TLS '$URL/v1/health' | grep -Eq '\"parked\":1[,}]'"
ok $? "the long-poll is parked"
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
is "$r" '201 {"cursor":6}' "another item"
wait "$poll"
is "$(cat "$T/poll.code")" 200 "the parked long-poll is answered 200"
like "$(cat "$T/poll.body")" '^\{"events":\[\{"cursor":6,"type":"item"' \
    "with the new item"

# SSE: resume from Last-Event-ID, then live events; heartbeats keep a
# stream alive past the 2 s read timeout. Streams never end by themselves:
# each reader is closed once it holds what the check needs.
# sse_read FILE PATTERN CURL-ARGS...: read a stream into FILE (headers in
# FILE.head) until a line matches PATTERN, then close it.
sse_read() {
	_sf=$1 _sp=$2
	shift 2
	curl -sS -N $CURL_TLS --max-time 600 -D "$_sf.head" "$@" >"$_sf" \
	    2>/dev/null &
	_spid=$!
	wait_for grep -q -- "$_sp" "$_sf"
	kill "$_spid" 2>/dev/null
	wait "$_spid" 2>/dev/null
}
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
curl -sS -N $CURL_TLS --max-time 600 -H "Authorization: $auth" \
    -H "Last-Event-ID: 4" "$URL/v1/sessions/$sid/stream" >"$T/sse" 2>/dev/null &
sse=$!
wait_for grep -q '^id: 6$' "$T/sse"
ok $? "the stream resumes after Last-Event-ID with the stored events"
"$CLI" item "$S" bob text
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
is "$r" '201 {"cursor":7}' "an item while streaming"
wait_for grep -q '^id: 7$' "$T/sse"
ok $? "the stream delivers it live"
# Four heartbeats, a second apart, span more than the 2 s read timeout.
wait_for sh -c "[ \$(grep -c '^: hb$' '$T/sse') -ge 4 ]"
ok $? "heartbeat comment lines"
kill -0 "$sse" 2>/dev/null
ok $? "the stream lives on past the read timeout (2 s)"
kill "$sse" 2>/dev/null
wait "$sse" 2>/dev/null
is "$(grep '^id: ' "$T/sse" | tr '\n' ' ')" "id: 5 id: 6 id: 7 " \
    "ids 5, 6, 7 once each: nothing lost, nothing repeated"
like "$(grep '^event: ' "$T/sse" | sort -u | tr '\n' ' ')" '^event: item $' \
    "every event is named by its type"
like "$(grep '^data: ' "$T/sse" | head -n 1)" \
    '^data: \{"cursor":5,"type":"item","data":\{' "data lines carry the event"
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream?last_event_id=6" \
    - "$ADDR")
sse_read "$T/sse2" '^id: 7$' -H "Authorization: $auth" \
    "$URL/v1/sessions/$sid/stream?last_event_id=6"
is "$(grep '^id: ' "$T/sse2" | tr '\n' ' ')" "id: 7 " \
    "?last_event_id= resumes too (for EventSource)"
# EventSource cannot set headers: the signature as the last parameter.
q=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$auth")
sse_read "$T/sse3" '^id: 7$' \
    "$URL/v1/sessions/$sid/stream?last_event_id=6&auth=$q"
is "$(grep '^id: ' "$T/sse3" | tr '\n' ' ')" "id: 7 " \
    "?auth= carries the signature for EventSource"
r=$(http GET "/v1/sessions/$sid/stream?auth=$q&last_event_id=6")
like "$r" '^40[01] ' "?auth= anywhere but last is refused"
r=$(http GET "/v1/sessions/$sid/stream?last_event_id=5&auth=$q")
like "$r" '^401 \{"error":"bad_signature"' "?auth= signed for another query: 401"
r=$(http GET "/v1/sessions/$sid/stream?last_event_id=6&auth=$q&auth=$q")
like "$r" '^400 \{"error":"bad_request"' "two auth parameters: 400, whichever is last"
r=$(http GET "/v1/sessions/$sid/stream?last_event_id=6&%61uth=$q")
like "$r" '^401 \{"error":"not_signed"' "an auth parameter spelt in %-escapes is not one: 401"
auth0=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
r=$(http GET "/v1/sessions/$sid/stream" --max-time 10 -H "Authorization: $auth0" -H "Last-Event-ID: 06")
like "$r" '^400 ' "a Last-Event-ID with a leading zero: 400"
ct=$(tr -d '\r' <"$T/sse3.head" | sed -n 's/^[Cc]ontent-[Tt]ype: *//p')
is "$ct" "text/event-stream" "the stream is text/event-stream"

# Chunks: a 1.5 MB payload in two chunks, bounded by the signed hashes.
head -c 1500000 /dev/urandom >"$T/payload"
"$CLI" item "$S" bob file "$T/payload"
id=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json" \
    -H 'Content-Type: application/json')
is "$r" '201 {"cursor":8}' "an item with two chunks"
r=$(call carol GET "/v1/sessions/$sid/items/$id/chunks/0" -)
like "$r" '^409 \{"error":"chunk_pending"' "a chunk not uploaded yet: 409"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/0" "$S/chunk.1")
like "$r" '^400 \{"error":"(truncated|too_large|bad_hash)"' \
    "a chunk of the wrong size at an index: 400 (${r%%,*})"
python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[100] ^= 1
open(sys.argv[2], "wb").write(b)' "$S/chunk.0" "$T/chunk.bad"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/0" "$T/chunk.bad")
like "$r" '^400 \{"error":"bad_hash"' "a flipped bit in a chunk: 400 bad_hash"
r=$(call carol PUT "/v1/sessions/$sid/items/$id/chunks/0" "$S/chunk.0")
like "$r" '^403 ' "only the author uploads chunks"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/0" "$S/chunk.0")
like "$r" '^201 ' "chunk 0 stored"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/0" "$S/chunk.0")
like "$r" '^409 \{"error":"exists"' "chunk 0 again: 409 exists"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/2" "$S/chunk.1")
like "$r" '^404 ' "an index past the last chunk: 404"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/1" "$S/chunk.1")
like "$r" '^201 ' "chunk 1 stored"
r=$(call carol GET "/v1/sessions/$sid/items/$id" -)
like "$r" "^200 \\{\"cursor\":8,\"item\":\\{.*\\},\"complete\":true\\}\$" \
    "the item is complete once every chunk is stored"
wait_for sh -c "'$CLI' auth '$S' carol GET '/v1/sessions/$sid/log?after=8' - \
    '$ADDR' >'$T/a' && curl -sS $CURL_TLS -H \"Authorization: \$(cat '$T/a')\" \
    '$URL/v1/sessions/$sid/log?after=8' | grep -q '\"type\":\"complete\"'"
ok $? "a complete event follows in the log"
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/items/$id/chunks/1" - \
    "$ADDR")
curl -sS $CURL_TLS -o "$T/got1" -H "Authorization: $auth" \
    "$URL/v1/sessions/$sid/items/$id/chunks/1"
cmp -s "$T/got1" "$S/chunk.1"
ok $? "a chunk comes back byte for byte"
wait_for sh -c "'$CLI' auth '$S' bob GET '/v1/sessions/$sid/receipts/$id' - \
    '$ADDR' >'$T/a' && curl -sS $CURL_TLS -H \"Authorization: \$(cat '$T/a')\" \
    '$URL/v1/sessions/$sid/receipts/$id' | grep -q '\"fp\"'"
ok $? "the author reads a delivery receipt"
r=$(call bob GET "/v1/sessions/$sid/receipts/$id" -)
like "$r" '^200 \{"receipts":\[\{"fp":"[A-Za-z0-9_-]{22}","time":[0-9]+\}\]\}$' \
    "one receipt: the reader's fingerprint and time"
r=$(call carol GET "/v1/sessions/$sid/receipts/$id" -)
like "$r" '^403 ' "receipts are the author's to read"

# Revocation: a new manifest version revoking carol.
"$CLI" revoke "$S" carol
r=$(call bob PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^403 \{"error":"wrong_role"' "only the owner updates the manifest"
r=$(call alice PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^200 \{"ver":2,"cursor":1[0-9]\}$' "the owner posts version 2"
r=$(call alice PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^409 ' "version 2 again: 409"
r=$(call carol GET "/v1/sessions/$sid/log" -)
like "$r" '^403 ' "the revoked participant is refused"
r=$(call bob POST "/v1/sessions/$sid/items" "$T/item1.json")
like "$r" '^409 ' "an old item is still refused"
"$CLI" item "$S" bob text
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "the sender goes on under version 2"

# Rotation: a new sender key; bob is kept, an old invite stops working.
cp "$S/secrets" "$T/secrets.old"
"$CLI" rotate "$S" sender bob
r=$(call alice PUT "/v1/sessions/$sid/manifest" "$S/manifest.json")
like "$r" '^200 \{"ver":3,' "the owner rotates the sender key (version 3)"
"$CLI" item "$S" bob text
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "a kept sender goes on after the rotation"
cp "$S/secrets" "$T/secrets.new"
cp "$T/secrets.old" "$S/secrets"
"$CLI" cert "$S" eve sender
cp "$T/secrets.new" "$S/secrets"
r=$(call eve POST "/v1/sessions/$sid/participants" "$S/eve.cert")
like "$r" '^403 \{"error":"wrong_role"' "a certificate from the old invite: 403"
"$CLI" cert "$S" frank sender
r=$(call frank POST "/v1/sessions/$sid/participants" "$S/frank.cert")
like "$r" '^201 ' "one from the new invite joins"

# Close: the owner's signed close deletes every key of the session.
sidhex=$(python3 -c 'import base64,sys; s=sys.argv[1]; print(base64.urlsafe_b64decode(s+"==").hex())' "$sid")
no_keys "$sidhex"
is $? 1 "before closing, the session has keys in LMDB"
"$CLI" close "$S" bob >"$T/close.json"
r=$(call bob DELETE "/v1/sessions/$sid" "$T/close.json")
like "$r" '^403 ' "a sender cannot close the session"
"$CLI" close "$S" alice >"$T/close.json"
r=$(call alice DELETE "/v1/sessions/$sid" "$T/close.json")
is "$r" '200 {"closed":true}' "the owner closes the session"
wait_for no_keys "$sidhex"
ok $? "no key of the closed session is left in any database (mdb_dump)"
r=$(http GET "/v1/sessions/$sid/manifest")
like "$r" '^404 ' "a closed session is gone"

# Expiry: a 5 s session is deleted by the cron's sweep.
S=$T/s2
mkdir -p "$S"
sid2=$("$CLI" create "$S" 5)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" '^201 ' "a session with a 5 s lifetime"
sid2hex=$(python3 -c 'import base64,sys; s=sys.argv[1]; print(base64.urlsafe_b64decode(s+"==").hex())' "$sid2")
wait_for no_keys "$sid2hex"
ok $? "after its lifetime the sweep deleted every key"
like "$(cat "$T/relay.log")" "session $sid2: expired, data deleted" \
    "and logged it"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"

# Creation restricted by token; disk watermark: writes 507, reads work.
S=$T/s3
mkdir -p "$S"
"$CLI" create "$S" 3600 >/dev/null
AIRLOX_CREATION_TOKEN=tok3n start_relay $MODE
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" '^403 \{"error":"forbidden"' "without the creation token: 403"
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json" \
    -H 'Airlox-Create-Token: wrong')
like "$r" '^403 ' "a wrong token: 403"
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json" \
    -H 'Airlox-Create-Token: tok3n')
like "$r" '^201 ' "with the token: 201"
stop_relay TERM
start_relay $MODE --disk-watermark 64T
sid3=$(cat "$S/sid")
r=$(http GET "/v1/sessions/$sid3/manifest")
like "$r" '^200 \{"manifests"' "below the watermark, reads work"
"$CLI" cert "$S" erin sender
r=$(call erin POST "/v1/sessions/$sid3/participants" "$S/erin.cert")
like "$r" '^507 \{"error":"insufficient_storage"' "and writes get 507"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
