#!/bin/sh
# stream.sh: durability and streams under stress. kill -9 during a run of
# posts, then every item answered 201 is in the log byte for byte; a
# subscriber that stops reading is dropped past --stream-buffer (and the
# relay goes on); live events reach HTTP/1.1 (chunked) and HTTP/1.0
# readers byte for byte; an item with CR and blank lines in it reaches an
# SSE reader as one whole event; SIGTERM ends open streams cleanly and
# exits 0.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"


start_relay --plain-http --stream-buffer 8K --rate-limit 100000
new_session
like "$r" '^201 ' "a session"
join bob:sender carol:observer
like "$r" '^201 ' "two participants"

# A reader that never reads: its socket buffers fill, then the relay's
# output for it passes 8K and it is dropped.
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
python3 - "$ADDR" "/v1/sessions/$sid/stream" "$auth" "$T/slow.ready" <<'PY' &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.connect((host, int(port)))
s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n\r\n"
           % (sys.argv[2], sys.argv[1], sys.argv[3])).encode())
open(sys.argv[4], "w").write("1")
while True:			# until the test kills it, however long posting takes
    time.sleep(60)
PY
EXTRA_PIDS=$!
wait_for test -s "$T/slow.ready"
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"streams\":1,'"
ok $? "the slow reader's stream is open"
i=0
mkdir -p "$T/posted"
while [ $i -lt 1000 ] && ! grep -q 'dropping a subscriber' "$T/relay.log"; do
	i=$((i + 1))
	"$CLI" item "$S" bob text
	r=$(call bob POST "/v1/sessions/$sid/items" "$S/item.json")
	case $r in
	"201 "*) c=$(echo "$r" | sed 's/.*"cursor":\([0-9]*\).*/\1/')
		cp "$S/item.json" "$T/posted/$c" ;;
	*) diag "post: $r"; break ;;
	esac
done
like "$(cat "$T/relay.log")" 'sse: dropping a subscriber: too much pending output' \
    "past --stream-buffer the slow subscriber is dropped ($i posts)"
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"streams\":0,'"
ok $? "and its stream is freed"
kill "$EXTRA_PIDS" 2>/dev/null
wait "$EXTRA_PIDS" 2>/dev/null
EXTRA_PIDS=

# kill -9 in the middle of posts: every 201 survives.
( while :; do
	"$CLI" item "$S" bob text || exit
	auth=$("$CLI" auth "$S" bob POST "/v1/sessions/$sid/items" \
	    "$S/item.json" "$ADDR") || exit
	out=$(curl -sS -w ' %{http_code}' -H "Authorization: $auth" \
	    --data-binary @"$S/item.json" "$URL/v1/sessions/$sid/items" \
	    2>/dev/null) || exit
	case $out in
	*" 201") c=$(echo "$out" | sed 's/.*"cursor":\([0-9]*\).*/\1/')
		cp "$S/item.json" "$T/posted/$c" ;;
	*) echo "# poster stops: $out"; exit ;;
	esac
done ) &
poster=$!
EXTRA_PIDS=$poster
before=$(ls "$T/posted" | wc -l)
wait_for sh -c "[ \$(ls '$T/posted' | wc -l) -ge $((before + 40)) ]"
kill -9 "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
RELAY_PID=
wait "$poster"
EXTRA_PIDS=
n=$(ls "$T/posted" | wc -l)
[ "$n" -ge $((before + 40)) ]
ok $? "$((n - before)) more items answered 201 before kill -9"
start_relay --plain-http --rate-limit 100000
ok $? "the relay restarts on the same data"
# The whole log, a page (at most 1000 events) at a time.
after=0
: >"$T/log.json"
while :; do
	p="/v1/sessions/$sid/log?after=$after&limit=1000"
	auth=$("$CLI" auth "$S" carol GET "$p" - "$ADDR")
	curl -sS -H "Authorization: $auth" "$URL$p" >"$T/page.json"
	next=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(j["next"] if j.get("events") else "")' "$T/page.json" 2>/dev/null)
	[ -n "$next" ] && [ "$next" -gt "$after" ] || break
	cat "$T/page.json" >>"$T/log.json"
	echo >>"$T/log.json"
	after=$next
done
missing=$(python3 - "$T/log.json" "$T/posted" <<'PY'
import json, os, sys
by = {}
for line in open(sys.argv[1]):
    if line.strip():
        for e in json.loads(line)["events"]:
            by[e["cursor"]] = e
bad = []
for name in os.listdir(sys.argv[2]):
    want = json.loads(open(os.path.join(sys.argv[2], name)).read())
    got = by.get(int(name))
    if got is None or got["type"] != "item" or got["data"] != want:
        bad.append(name)
print(" ".join(sorted(bad)))
PY
)
is "$missing" "" "every item answered 201 is in the log after kill -9, unchanged"

# Live events go straight to a plain socket, framed as evhttp would frame
# them (relay-sse.c): an HTTP/1.1 reader (chunked) and an HTTP/1.0 reader
# (no framing) both get each posted item exactly.
# (A new sender: bob's chain at the client may be ahead of the relay's
# after the kill.)
"$CLI" cert "$S" dave sender
r=$(call dave POST "/v1/sessions/$sid/participants" "$S/dave.cert")
like "$r" '^201 ' "a new sender joins after the restart"
next=$(echo "$r" | sed 's/.*"cursor":\([0-9]*\).*/\1/')
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
for v in 1.1 1.0; do
	curl -sS -N --max-time 600 --http$v -H "Authorization: $auth" \
	    -H "Last-Event-ID: $next" "$URL/v1/sessions/$sid/stream" \
	    >"$T/live.$v" 2>"$T/live.$v.err" &
	EXTRA_PIDS="$EXTRA_PIDS $!"
done
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"streams\":2,'"
ok $? "an HTTP/1.1 and an HTTP/1.0 stream are open"
mkdir -p "$T/live"
for k in 1 2 3; do
	"$CLI" item "$S" dave text
	cp "$S/item.json" "$T/live/$k"
	r=$(http POST "/v1/sessions/$sid/items" --data-binary @"$S/item.json")
	like "$r" '^201 ' "live item $k posted"
done
for v in 1.1 1.0; do
	wait_for sh -c "[ \$(grep -c '^event: item' '$T/live.$v') -ge 3 ]"
	got=$(python3 - "$T/live.$v" "$T/live" <<'PY'
import json, os, sys
raw = open(sys.argv[1], newline="").read()  # keep any CR
if "\r" in raw:			# chunk framing where there should be none
    print("framing in the stream: %r" % raw[-200:])
    sys.exit(0)
data = [l[6:] for l in raw.split("\n") if l.startswith("data: ")]
want = [open(os.path.join(sys.argv[2], k)).read() for k in ("1", "2", "3")]
ev = [json.loads(d) for d in data]
items = [e["data"] if isinstance(e, dict) and "data" in e else e
         for e in ev]
print("same" if items[-3:] == [json.loads(w) for w in want] else
      "differ: %r" % data[-3:])
PY
)
	is "$got" same "HTTP/$v reader: the three live items, byte for byte"
done
for p in $EXTRA_PIDS; do
	kill "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
EXTRA_PIDS=

# An item with CR, CR LF, LF and CR CR between its members (JSON whitespace):
# SSE readers end a line at CR, LF or CR LF, so each must start a new
# "data:" line; left inside one, a CR would cut the event's data short, and
# CR CR would end the event early. Read as a browser reads the stream: the
# item's event parses to the item, and no other event comes.
last=$(echo "$r" | sed 's/.*"cursor":\([0-9]*\).*/\1/')
curl -sS -N --max-time 600 -H "Authorization: $auth" \
    -H "Last-Event-ID: $last" "$URL/v1/sessions/$sid/stream" \
    >"$T/crlf" 2>"$T/crlf.err" &
EXTRA_PIDS=$!
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"streams\":1,'"
"$CLI" item "$S" dave text
python3 - "$S/item.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
for ws in ("\r", "\r\n", "\n\n", "\r\r"):
    s = s.replace('","', '",' + ws + '"', 1)
open(sys.argv[1], "w").write(s)
PY
r=$(http POST "/v1/sessions/$sid/items" --data-binary @"$S/item.json")
like "$r" '^201 ' "an item with CR, CR LF and blank lines between its members"
# The event is whole once a blank line follows its signature.
event_whole() {
	python3 -c 'import re, sys
raw = open(sys.argv[1], newline="").read()
i = raw.rfind("\"sig\"")
sys.exit(0 if i >= 0 and re.search(r"(\r\n|\r|\n)(\r\n|\r|\n)", raw[i:]) else 1)' "$T/crlf"
}
wait_for event_whole
sleep 0.3	# room for an event that should not come
got=$(python3 - "$T/crlf" "$S/item.json" <<'PY'
import json, re, sys
raw = open(sys.argv[1], newline="").read()
events, ev, data = [], None, []
for line in re.split(r"\r\n|\r|\n", raw):
    if line == "":
        if data:
            events.append((ev or "message", "\n".join(data)))
        ev, data = None, []
    elif line.startswith("event:"):
        ev = line[6:].strip()
    elif line.startswith("data:"):
        data.append(line[5:][1:] if line[5:6] == " " else line[5:])
items = [d for e, d in events if e == "item"]
other = [e for e, d in events if e != "item"]
try:
    ok = json.loads(items[-1])["data"] == json.loads(open(sys.argv[2]).read())
except Exception as e:
    ok = False
print("same" if ok and not other and len(items) == 1 else
      "differ: %d items, other events %r, %r" % (len(items), other, raw[-300:]))
PY
)
is "$got" same "an SSE reader gets that item whole, as one event"
kill $EXTRA_PIDS 2>/dev/null
wait $EXTRA_PIDS 2>/dev/null
EXTRA_PIDS=

# SIGTERM with a stream open: it ends cleanly, exit 0.
auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
curl -sS -N --max-time 600 -H "Authorization: $auth" \
    -H "Last-Event-ID: 999999" "$URL/v1/sessions/$sid/stream" \
    >"$T/sse" 2>"$T/sse.err" &
sse=$!
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"streams\":1,'"
ok $? "a stream is open"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM with a stream open: exit status 0"
wait "$sse"
is $? 0 "the stream ended cleanly (curl saw the end of the reply)"
done_testing
