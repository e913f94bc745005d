#!/bin/sh
# health.sh: health, live and ready over plain HTTP; JSON errors for unknown
# paths and methods; a bad path; curl as the outside client; the relay's
# threads carry names (for top -H and ps -L).
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl

start_relay --plain-http --verify-threads 3
ok $? "relay starts on plain HTTP and answers health"
is "$(cat /proc/"$RELAY_PID"/task/*/comm | sort | uniq -c | awk '{ printf "%s%s=%s", s, $2, $1; s = " " }')" \
    "airlox-relayd=1 alx-store=1 alx-verify=3" \
    "its threads are named: the loop, the store's writer, 3 verify workers"
like "$(cat "$T/relay.log")" "warning: serving plain HTTP" \
    "plain HTTP is announced with a warning"
like "$(cat "$T/relay.log")" "listening on 127\.0\.0\.1:[1-9][0-9]*" \
    "the log names the real port"
is "$(head -n 1 "$T/port")" "$ADDR" "the port file holds ADDR:PORT"

r=$(http GET /v1/health)
like "$r" '^200 \{"status":"ok",' "GET /v1/health is 200 with status ok"
r=$(http GET /v1/health/live)
like "$r" '^200 \{"status":"live",' "GET /v1/health/live is 200"
r=$(http GET /v1/health/ready)
like "$r" '^200 \{"status":"ready",' "GET /v1/health/ready is 200"
ct=$(curl -sS -o /dev/null -w '%{content_type}' "$URL/v1/health")
is "$ct" "application/json" "health is application/json"

r=$(http GET /v1/no/such/thing)
is "$r" '404 {"error":"not_found","message":"no such endpoint"}' \
    "an unknown path is a JSON 404"
r=$(http GET /v1/health/)
like "$r" '^404 \{"error":"not_found"' "a trailing slash is not the same path"
r=$(http DELETE /v1/health)
like "$r" '^405 \{"error":"method_not_allowed"' "a wrong method is a JSON 405"
allow=$(curl -sS -D - -o /dev/null -X DELETE "$URL/v1/health" |
    tr -d '\r' | sed -n 's/^Allow: //p')
is "$allow" "GET, HEAD" "405 names the allowed methods"
r=$(http GET '/v1/health%00x')
like "$r" '^400 \{"error":"bad_path"' "a NUL byte in the path is a JSON 400"
r=$(http GET '/v1/%2e%2e/health')
like "$r" '^404 \{"error":"not_found"' "dot segments do not reach a route"
r=$(http HEAD /v1/health -I)
like "$r" '^200 ' "HEAD /v1/health is 200"
r=$(printf 'NONSENSE\r\n\r\n' | curl -sS -o /dev/null -w '%{http_code}' \
    --data-binary @- -X 'BREW' "$URL/v1/health")
like "$r" '^(400|405|501)$' "an unknown method is refused ($r)"
r=$(http GET /v1/health)
like "$r" '^200 ' "still serving after the bad requests"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
like "$(cat "$T/relay.log")" "shutdown: done" "the relay logs a clean shutdown"
done_testing
