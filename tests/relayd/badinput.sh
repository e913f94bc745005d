#!/bin/sh
# badinput.sh: the catalogue of malformed and hostile requests in
# badinput.py against a real relay with a live session; every request gets
# the right status and the relay still serves afterwards.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

start_relay --plain-http --timeout 3 --rate-limit 100000
ok $? "relay starts"
# A peer of protocol 1 (bodies without key commitment, v 1) is refused by
# name, before anything is stored (docs/protocol.md section 15).
mkdir "$T/p1"
"$CLI" create "$T/p1" 3600 >/dev/null
"$CLI" protocol1 "$T/p1" manifest.json owner >"$T/p1.json"
like "$(http POST /v1/sessions --data-binary @"$T/p1.json")" \
    '^400 \{"error":"unsupported_version"' \
    "a protocol-1 manifest: 400 unsupported_version"
sid=$("$CLI" create "$S" 3600)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
for who in bob:sender carol:observer; do
	"$CLI" cert "$S" "${who%%:*}" "${who#*:}"
	auth=$("$CLI" auth "$S" "${who%%:*}" POST \
	    "/v1/sessions/$sid/participants" "$S/${who%%:*}.cert" "$ADDR")
	r=$(http POST "/v1/sessions/$sid/participants" \
	    -H "Authorization: $auth" --data-binary @"$S/${who%%:*}.cert")
done
"$CLI" item "$S" bob text
auth=$("$CLI" auth "$S" bob POST "/v1/sessions/$sid/items" "$S/item.json" \
    "$ADDR")
r=$(http POST "/v1/sessions/$sid/items" -H "Authorization: $auth" \
    --data-binary @"$S/item.json")
like "$r" '^201 ' "a session with a sender, an observer and an item"
python3 "$top_srcdir/tests/relayd/badinput.py" "$ADDR" "$CLI" "$S" "$sid" \
    >"$T/cat.tap"
rc=$?
sed 's/^\(not \)\{0,1\}ok [0-9]* - /&catalogue: /' "$T/cat.tap" |
    grep -v '^#' | while IFS= read -r line; do echo "$line"; done >"$T/cat2"
# Renumber the catalogue's lines after ours.
while IFS= read -r line; do
	case $line in
	"ok "*) ok 0 "${line#* - }" ;;
	"not ok "*) ok 1 "${line#* - }" ;;
	*) echo "$line" ;;
	esac
done <"$T/cat2"
grep '^#' "$T/cat.tap"
is "$rc" 0 "the catalogue passed as a whole"
n=$(grep -c 'ok [0-9]* - ' "$T/cat.tap")
[ "$n" -ge 60 ]
ok $? "at least 60 hostile requests ($n)"
# Last: relay-cli counts bob's refused item in his chain.
"$CLI" item "$S" bob text
"$CLI" protocol1 "$S" item.json bob >"$T/p1item.json"
like "$(http POST "/v1/sessions/$sid/items" --data-binary @"$T/p1item.json")" \
    '^400 \{"error":"unsupported_version"' \
    "a protocol-1 item: 400 unsupported_version"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
