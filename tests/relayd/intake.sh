#!/bin/sh
# intake.sh: what the relay reads itself before a request is handled
# (relayd/relay-gate.c), with intake.py's raw sockets: a body over
# --max-body-size is answered 413 from its Content-Length before the body
# is sent; a chunked body gets 411; past --body-memory the relay answers
# 503 with Retry-After at once (bodies announced but not sent yet hold
# their share) and takes uploads again once those are handled; one address
# holds at most a quarter of the budget; a head sent a line at a time is
# answered 408 at --header-timeout although each line comes well within
# --timeout. Refusals are logged: one line each, at most ten a minute,
# naming the endpoint's pattern, never a path, query or header.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
PY=$top_srcdir/tests/relayd/intake.py

start_relay --plain-http --body-memory 8M --max-body-size 1M \
    --header-timeout 2 --timeout 3 --rate-limit 100000
ok $? "relay starts"

for c in early413 chunked budget share slowhead; do
	r=$(python3 "$PY" "$ADDR" "$c")
	ok $? "$c: $r"
done

r=$(http GET /v1/health)
like "$r" '^200 ' "still serving"

# The log: a line per refusal, with the endpoint's pattern.
has "$(cat "$T/relay.log")" "http: refused POST /v1/sessions from 127.0.0.1: 413 too_large" \
    "the early 413 is logged with the endpoint and address"
has "$(cat "$T/relay.log")" ": 411 bad_request" "the 411 is logged"
has "$(cat "$T/relay.log")" "http: refused POST /v1/sessions/:/items from 127.0.0.1" \
    "a refused item post is logged by pattern, not by its path"
lacks "$(cat "$T/relay.log")" "AAAAAAAAAAAAAAAAAAAAAA" "no path of a refused request"

# Past ten a minute, refusals are counted, not logged (a new relay: a
# new minute).
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
n0=$(wc -l <"$T/relay.log")
start_relay --plain-http --rate-limit 100000
python3 - "$ADDR" <<'PYEOF'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=30)
req = b"GET /nope?auth=SECRET HTTP/1.1\r\nHost: x\r\nAuthorization: SECRET\r\n\r\n"
buf = b""
for i in range(200):
    s.sendall(req)
    while buf.count(b"HTTP/1.1 404") <= i:
        buf += s.recv(65536)
PYEOF
ok $? "200 requests for no endpoint, on one connection"
log=$(tail -n +"$((n0 + 1))" "$T/relay.log")
is "$(printf '%s\n' "$log" | grep -c 'http: refused')" 10 \
    "ten refusals logged in the minute, not 200"
lacks "$(cat "$T/relay.log")" "SECRET" "no query or header in the log"
has "$log" "http: refused GET (no such endpoint) from 127.0.0.1: 404 not_found" \
    "a refusal for no endpoint names none"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
