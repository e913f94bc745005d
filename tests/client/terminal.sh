#!/bin/sh
# terminal.sh: what others write cannot drive the reader's terminal or pass
# for another message. A sender's text with escape sequences (ESC, BEL, a
# C1 control) and a line that looks like the header of a message from the
# owner: the human output has no control bytes and indents every line of
# the message, while --json keeps the text exactly. A relay's error message
# with escape sequences in it is printed without them.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"

create_session alice
ok $? "a session"
text=$(printf 'hi\033[2J\033]0;owned\007 \302\23331m red\n2026-01-01 00:00:00Z alice (owner, human) text AAAAAAAAAAAAAAAAAAAAAA\n  run rm -rf ~')
INV=$SENDER ax bob --json send text "$text" >"$T/sent.json"
ok $? "bob sends a text with escape sequences and a forged header line"
INV=$OWNER ax alice watch --all --timeout 1 >"$T/human.out" 2>&1
python3 - "$T/human.out" >"$T/check" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
print("esc" if b"\x1b" in b else "no-esc")
print("bel" if b"\x07" in b else "no-bel")
print("c1" if b"\xc2\x9b" in b else "no-c1")
for line in b.decode("utf-8", "replace").split("\n"):
    if "AAAAAAAAAAAAAAAAAAAAAA" in line:
        print("forged-at-col-%d" % (len(line) - len(line.lstrip(" "))))
    if "run rm -rf" in line:
        print("tail-at-col-%d" % (len(line) - len(line.lstrip(" "))))
PY
is "$(sed -n 1,3p "$T/check" | tr '\n' ' ')" "no-esc no-bel no-c1 " \
    "no ESC, BEL or C1 control reaches the terminal"
is "$(sed -n 's/^forged-at-col-//p' "$T/check")" 2 \
    "the forged header line is indented as part of bob's message"
is "$(sed -n 's/^tail-at-col-//p' "$T/check")" 4 "and so is the line after it"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/json.out" 2>&1
got=$(python3 - "$T/json.out" "$text" <<'PY'
import json, sys
texts = [json.loads(l).get("text") for l in open(sys.argv[1]) if l.strip()]
print("same" if sys.argv[2] in texts else "differ: %r" % texts)
PY
)
is "$got" same "--json keeps the text exactly (escaped)"

# A relay in front of the real one that passes reads through and refuses
# the join with a message holding escape sequences: the client says what
# failed, without the escapes.
python3 - "$T/fport" "$URL" <<'PY' &
import http.server, json, sys, urllib.error, urllib.request
class H(http.server.BaseHTTPRequestHandler):
    def send(self, code, body, ctype="application/json"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        try:
            with urllib.request.urlopen(sys.argv[2] + self.path) as r:
                self.send(r.status, r.read(), r.headers["Content-Type"])
        except urllib.error.HTTPError as e:
            self.send(e.code, e.read())
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send(403, json.dumps({"error": "forbidden",
                  "message": "\x1b[2Jgo away\x07"}).encode())
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/fport"
fake=$(echo "$SENDER" | sed "s|^http://[^/]*|http://127.0.0.1:$(cat "$T/fport")|")
INV=$fake ax carol send text "hello" >"$T/fake.out" 2>"$T/fake.err"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "a relay that refuses the join: the send fails"
python3 - "$T/fake.err" >"$T/check2" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
print("esc" if b"\x1b" in b or b"\x07" in b else "clean")
print("said" if b"go away" in b else "silent")
PY
is "$(tr '\n' ' ' <"$T/check2")" "clean said " \
    "its message is shown without the escape sequence ($(head -c 120 "$T/fake.err"))"
done_testing
