#!/bin/sh
# reply.sh: the client reads what a relay answers as hostile input
# (alxs_reply.c): a Retry-After it cannot sleep on for long, whatever its
# number; the retries stop after their count with the error the relay named.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
create_session alice || skip_all "session create failed"

# A relay that answers every request 429 with a Retry-After of 2^66
# seconds (before, the client multiplied it into an overflow and slept
# for 71 minutes), counting the requests it saw.
python3 - "$T/fport" "$T/count" <<'PY' &
import http.server, json, sys
n = 0
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        global n
        n += 1
        open(sys.argv[2], "w").write(str(n))
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps({"error": "rate_limited", "message": "slow down"}).encode()
        self.send_response(429)
        self.send_header("Retry-After", "73786976294838206464")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_POST = do_PUT = do_DELETE = answer
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/fport" || skip_all "the fake relay did not start"
fake=$(echo "$SENDER" | sed "s|^http://[^/]*|http://127.0.0.1:$(cat "$T/fport")|")
AIRLOX_INVITE=$fake timeout 300 "$AX" carol --json send text "hello" >"$T/rl.out" 2>"$T/rl.err"
rc=$?
[ $rc -ne 124 ]; ok $? "a Retry-After of 2^66 s does not hold the client (exit $rc)"
like "$(cat "$T/rl.out")" '"error":"rate_limited"' "it fails with the relay's error"
is "$(cat "$T/count")" 5 "after its five tries"
done_testing
