#!/bin/sh
# bigitem.sh: a 100 MB item passes through the relay in 1 MiB chunks, one
# per request, and comes back byte for byte, while the relay's anonymous
# memory (RssAnon, sampled after every request) stays under 64 MB.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
[ -r /proc/self/status ] || skip_all "needs /proc"
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"
MB=${BIGITEM_MB:-100}

rss() {
	sed -n 's/^RssAnon:[^0-9]*\([0-9]*\) kB/\1/p' "/proc/$RELAY_PID/status"
}

start_relay --plain-http --rate-limit 100000
sid=$("$CLI" create "$S" 3600)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
"$CLI" cert "$S" bob sender
auth=$("$CLI" auth "$S" bob POST "/v1/sessions/$sid/participants" \
    "$S/bob.cert" "$ADDR")
r=$(http POST "/v1/sessions/$sid/participants" -H "Authorization: $auth" \
    --data-binary @"$S/bob.cert")
like "$r" '^201 ' "a session with a sender"
head -c $((MB * 1024 * 1024)) /dev/urandom >"$T/payload"
"$CLI" item "$S" bob file "$T/payload"
rm -f "$T/payload"
id=$(cat "$S/item.id")
auth=$("$CLI" auth "$S" bob POST "/v1/sessions/$sid/items" "$S/item.json" \
    "$ADDR")
r=$(http POST "/v1/sessions/$sid/items" -H "Authorization: $auth" \
    --data-binary @"$S/item.json")
like "$r" '^201 ' "a $MB MB item is announced"
peak=$(rss)
i=0
fail=0
while [ $i -lt "$MB" ]; do
	p="/v1/sessions/$sid/items/$id/chunks/$i"
	auth=$("$CLI" auth "$S" bob PUT "$p" "$S/chunk.$i" "$ADDR")
	code=$(curl -sS -o /dev/null -w '%{http_code}' -X PUT \
	    -H "Authorization: $auth" --data-binary @"$S/chunk.$i" "$URL$p")
	[ "$code" = 201 ] || fail=$((fail + 1))
	v=$(rss)
	[ "$v" -gt "$peak" ] && peak=$v
	i=$((i + 1))
done
is "$fail" 0 "all $MB chunks stored"
i=0
fail=0
while [ $i -lt "$MB" ]; do
	p="/v1/sessions/$sid/items/$id/chunks/$i"
	auth=$("$CLI" auth "$S" bob GET "$p" - "$ADDR")
	curl -sS -o "$T/got" -H "Authorization: $auth" "$URL$p"
	cmp -s "$T/got" "$S/chunk.$i" || fail=$((fail + 1))
	v=$(rss)
	[ "$v" -gt "$peak" ] && peak=$v
	i=$((i + 1))
done
is "$fail" 0 "all $MB chunks came back byte for byte"
if grep -q libasan "/proc/$RELAY_PID/maps"; then
	ok 0 "# SKIP memory bound: ASan's shadow memory counts as anonymous"
else
	[ "$peak" -lt 65536 ]
	ok $? "the relay's anonymous memory stayed under 64 MB (peak ${peak} kB)"
fi
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
