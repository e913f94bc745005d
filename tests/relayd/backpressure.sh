#!/bin/sh
# backpressure.sh: item signatures are checked on worker threads behind a
# bounded queue. With one worker and a queue of one, a burst of posts from
# many members (sent so that they complete together) gets some 201s and
# some 503s with Retry-After: 1 and not_ready; every 201 item is in the
# log, no 503 item is; the refused ones go through when posted again; and
# posts of one member on several connections keep their chain order.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
K=16
mkdir -p "$S" "$T/req"

start_relay --plain-http --rate-limit 100000 --verify-threads 1 \
    --verify-queue 1
sid=$("$CLI" create "$S" 3600)
r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
like "$r" '^201 ' "a session"
"$CLI" cert "$S" carol observer
call carol POST "/v1/sessions/$sid/participants" "$S/carol.cert" >/dev/null
i=1
while [ $i -le $K ]; do
	"$CLI" cert "$S" "s$i" sender || exit 1
	r=$(call "s$i" POST "/v1/sessions/$sid/participants" "$S/s$i.cert")
	case $r in "201 "*) ;; *) diag "join s$i: $r" ;; esac
	"$CLI" item "$S" "s$i" text || exit 1
	cp "$S/item.json" "$T/req/body.$i"
	"$CLI" auth "$S" "s$i" POST "/v1/sessions/$sid/items" \
	    "$T/req/body.$i" "$ADDR" >"$T/req/auth.$i"
	i=$((i + 1))
done
like "$r" '^201 ' "$K senders and an observer joined"

# One connection per member; all requests but their last byte first, then
# the last bytes together, so the relay reads them in one burst.
burst() {
	python3 - "$ADDR" "/v1/sessions/$sid/items" "$T/req" "$@" <<'PY'
import socket, sys, time
addr, path, d = sys.argv[1], sys.argv[2], sys.argv[3]
host, port = addr.rsplit(":", 1)
conns = []
for i in sys.argv[4:]:
    body = open("%s/body.%s" % (d, i), "rb").read()
    auth = open("%s/auth.%s" % (d, i)).read().strip()
    req = ("POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"
           "Content-Type: application/json\r\nContent-Length: %d\r\n"
           "Connection: close\r\n\r\n" % (path, addr, auth, len(body))
           ).encode() + body
    s = socket.create_connection((host, int(port)))
    s.sendall(req[:-1])
    conns.append((i, s, req[-1:]))
time.sleep(0.3)
for _, s, last in conns:
    s.sendall(last)
for i, s, _ in conns:
    s.settimeout(20)
    data = b""
    while True:
        d2 = s.recv(65536)
        if not d2:
            break
        data += d2
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ")[1]
    ra = "-"
    for l in lines[1:]:
        k, _, v = l.partition(":")
        if k.strip().lower() == "retry-after":
            ra = v.strip()
    print(i, status, ra, body.decode("utf-8", "replace").replace(" ", ""))
PY
}
all=$(i=1; while [ $i -le $K ]; do printf '%s ' $i; i=$((i + 1)); done)
burst $all >"$T/burst"
n201=$(awk '$2 == 201' "$T/burst" | wc -l)
n503=$(awk '$2 == 503' "$T/burst" | wc -l)
diag "burst of $K: $n201 created, $n503 refused"
is "$((n201 + n503))" "$K" "every post of the burst got 201 or 503"
[ "$n201" -ge 1 ]
ok $? "some were accepted"
[ "$n503" -ge 1 ]
ok $? "and some refused: the verify queue is bounded"
bad=$(awk '$2 == 503 && ($3 != "1" || $4 !~ /"error":"not_ready"/)' \
    "$T/burst")
is "$bad" "" "each 503 has Retry-After: 1 and not_ready"

# The log: exactly the items answered 201.
log_items() {
	call carol GET "/v1/sessions/$sid/log?after=0&limit=1000" - |
	    sed 's/^200 //' >"$T/log.json"
	python3 - "$T/log.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["events"]
for e in ev:
    if e["type"] == "item":
        print(e["data"]["sig"])
PY
}
log_items | sort >"$T/logged"
missing=0
extra=0
while read -r i st ra rest; do
	sig=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sig"])' \
	    "$T/req/body.$i")
	if grep -qxF -e "$sig" "$T/logged"; then
		[ "$st" = 201 ] || extra=$((extra + 1))
	else
		[ "$st" = 503 ] || missing=$((missing + 1))
	fi
done <"$T/burst"
is "$missing/$extra" "0/0" "the log holds every 201 item and no 503 item"

# Posted again (one at a time), the refused ones are accepted.
again=0
for i in $(awk '$2 == 503 { print $1 }' "$T/burst"); do
	r=$(call "s$i" POST "/v1/sessions/$sid/items" "$T/req/body.$i")
	case $r in "201 "*) again=$((again + 1)) ;; *) diag "again s$i: $r" ;;
	esac
done
is "$again" "$n503" "the refused posts succeed when sent again"
is "$(log_items | wc -l | tr -d ' ')" "$K" "now all $K items are logged"

# One member, several items in flight on separate connections: the
# workers may finish them in any order, the chain check sees them in the
# order they arrived. Queue room for all of them this time.
stop_relay
start_relay --plain-http --rate-limit 100000 --verify-threads 2
j=1
while [ $j -le 6 ]; do
	"$CLI" item "$S" s1 text || exit 1
	cp "$S/item.json" "$T/req/body.c$j"
	"$CLI" auth "$S" s1 POST "/v1/sessions/$sid/items" \
	    "$T/req/body.c$j" "$ADDR" >"$T/req/auth.c$j"
	j=$((j + 1))
done
burst c1 c2 c3 c4 c5 c6 >"$T/chain"
is "$(awk '$2 != 201' "$T/chain")" "" \
    "six chained items of one member sent together: all 201, in order"
is "$(log_items | wc -l | tr -d ' ')" "$((K + 6))" "and all logged"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit 0"
done_testing
