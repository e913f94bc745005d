#!/bin/sh
# quota.sh: each session limit hit and reported: sessions created per
# address per hour (429 with Retry-After), sessions stored (507),
# participants per session, item size and session size (413), transfer
# per session, uploads and downloads; a lifetime over the maximum; no
# expiry only when allowed.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
CLI=$top_builddir/tests/relayd/relay-cli

create() {	# create DIR [LIFETIME]: prints "STATUS BODY"
	mkdir -p "$1"
	"$CLI" create "$1" "${2:-3600}" >/dev/null
	http POST /v1/sessions --data-binary @"$1/manifest.json"
}

start_relay --plain-http --sessions-per-hour 2 --max-participants 1 \
    --max-item-size 1K --max-session-size 6K --max-transfer 5K \
    --max-session-lifetime 2h --session-lifetime 1h
like "$(create "$T/a")" '^201 ' "first session"
like "$(create "$T/b")" '^201 ' "second session"
r=$(create "$T/c")
like "$r" '^429 \{"error":"rate_limited"' "a third within the hour: 429"
ra=$(curl -sS -D - -o /dev/null --data-binary @"$T/c/manifest.json" \
    "$URL/v1/sessions" | tr -d '\r' | sed -n 's/^Retry-After: //p')
like "$ra" '^[1-9][0-9]*$' "with Retry-After ($ra s)"

S=$T/a
sid=$(cat "$S/sid")
"$CLI" cert "$S" bob sender
"$CLI" cert "$S" carol observer
r=$(call bob POST "/v1/sessions/$sid/participants" "$S/bob.cert")
like "$r" '^201 ' "one participant"
r=$(call carol POST "/v1/sessions/$sid/participants" "$S/carol.cert")
like "$r" '^403 \{"error":"not_allowed","message":"the session has its maximum of participants"' \
    "a second over --max-participants 1: 403"
head -c 2000 /dev/urandom >"$T/2k"
cp "$S/bob.seq" "$T/seq" 2>/dev/null
"$CLI" item "$S" bob file "$T/2k"
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^413 \{"error":"too_large"' "an item over --max-item-size 1K: 413"
rm -f "$S/bob.seq" "$S/bob.prev"
head -c 900 /dev/urandom >"$T/900"
n=0
last=
while [ $n -lt 10 ]; do
	"$CLI" item "$S" bob file "$T/900"
	r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
	case $r in 201*) n=$((n + 1)) ;; *) last=$r; break ;; esac
done
like "$last" '^(413 \{"error":"too_large"|403 \{"error":"not_allowed")' \
    "items until a session limit: refused after $n (${last%%,*})"
stop_relay TERM

# Transfer counts downloads too: one 1000-byte file fetched again and again
# stops at --max-transfer 4K (before, downloads were served without end).
start_relay --plain-http --max-transfer 4K
S=$T/t
mkdir -p "$S"
like "$(create "$S")" '^201 ' "a session on a relay with --max-transfer 4K"
sid=$(cat "$S/sid")
"$CLI" cert "$S" bob sender
r=$(call bob POST "/v1/sessions/$sid/participants" "$S/bob.cert")
head -c 1000 /dev/urandom >"$T/1000"
"$CLI" item "$S" bob file "$T/1000"
id=$(cat "$S/item.id")
r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
like "$r" '^201 ' "bob posts a 1000-byte file"
r=$(call bob PUT "/v1/sessions/$sid/items/$id/chunks/0" "$S/chunk.0")
like "$r" '^201 ' "and its chunk"
n=0
last=
while [ $n -lt 10 ]; do
	r=$(call bob GET "/v1/sessions/$sid/items/$id/chunks/0" -)
	case $r in 200*) n=$((n + 1)) ;; *) last=$r; break ;; esac
done
[ $n -ge 1 ] && [ $n -lt 4 ]
ok $? "the chunk is served until the session's transfer is spent ($n times)"
like "$last" '^403 \{"error":"not_allowed","message":"this session has moved as many bytes' \
    "then 403 not_allowed, saying why"
like "$(call bob GET "/v1/sessions/$sid/items/$id" -)" '^403 \{"error":"not_allowed"' \
    "reading the item is refused too"
like "$(call bob GET "/v1/sessions/$sid/log?after=0" -)" '^200 ' \
    "the event log is still served"
stop_relay TERM

# Sessions stored: two exist; --max-sessions 2 refuses a third.
start_relay --plain-http --max-sessions 2
r=$(create "$T/d")
like "$r" '^507 \{"error":"insufficient_storage","message":"this relay holds its maximum' \
    "over --max-sessions: 507"
stop_relay TERM

# Lifetimes.
start_relay --plain-http --max-session-lifetime 2h --session-lifetime 1h \
    --allow-no-expiry=no
r=$(create "$T/e" 86400)
like "$r" '^403 \{"error":"not_allowed","message":"the lifetime exceeds' \
    "a lifetime over --max-session-lifetime: 403"
like "$r" '"max_lifetime":7200\}$' "the refusal names the relay's maximum"
r=$(create "$T/f" 0)
like "$r" '^201 ' "a session asking for no expiry gets the default lifetime"
stop_relay TERM
start_relay --plain-http --allow-no-expiry --max-session-lifetime 2h \
    --session-lifetime 1h
r=$(create "$T/g" 0)
like "$r" '^201 ' "no expiry where the operator allows it"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
