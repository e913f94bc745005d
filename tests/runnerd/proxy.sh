#!/bin/sh
# The egress proxy (runner-proxy*.c) through its real path: the runner's
# start and job registration, the in-sandbox forwarder's fd passing, and
# the proxy process, with the test resolver of proxy-test (never shipped)
# mapping names to a local TLS server (openssl s_server) and to
# non-public addresses.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
PT=$top_builddir/tests/runnerd/proxy-test
command -v openssl >/dev/null || skip_all "no openssl"
command -v curl >/dev/null || skip_all "no curl"
[ -x "$PY" ] || skip_all "no $PY"

mkdir -p "$T/state" && chmod 700 "$T/state"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" \
    -out "$T/cert.pem" -days 1 -subj /CN=allowed.test \
    -addext "subjectAltName=DNS:allowed.test,DNS:www.allowed.test" \
    >/dev/null 2>&1 || { echo "Bail out! no test cert"; exit 99; }
PIDS=
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; cleanup' EXIT INT TERM

openssl s_server -accept 127.0.0.1:0 -cert "$T/cert.pem" -key "$T/key.pem" \
    -www -naccept 100 > "$T/tls.out" 2>&1 &
PIDS="$PIDS $!"
wait_for grep -q '^ACCEPT' "$T/tls.out" || { echo "Bail out! s_server"; exit 99; }
SPORT=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "$T/tls.out")
mkdir -p "$T/www" && echo "plain-page-$$" > "$T/www/index.html"
"$PY" -c 'import http.server, socketserver, sys, os
os.chdir(sys.argv[1])
h = http.server.SimpleHTTPRequestHandler
h.log_message = lambda *a: None
s = socketserver.TCPServer(("127.0.0.1", 0), h)
print(s.server_address[1], flush=True)
s.serve_forever()' "$T/www" > "$T/http.port" &
PIDS="$PIDS $!"
wait_for grep -q '[0-9]' "$T/http.port" || { echo "Bail out! http server"; exit 99; }
HPORT=$(head -1 "$T/http.port")

MAP="allowed.test=+127.0.0.1:$SPORT,www.allowed.test=+127.0.0.1:$SPORT"
MAP="$MAP,plain.test=+127.0.0.1:$HPORT,private.test=10.1.2.3"
MAP="$MAP,meta.test=169.254.169.254,loop.test=127.0.0.1"
MAP="$MAP,mapped.test=::ffff:127.0.0.1,nat64.test=64:ff9b::a9fe:a9fe"
MAP="$MAP,cgnat.test=100.64.1.1,doc.test=198.51.100.5"
ALLOW=.allowed.test,private.test,meta.test,loop.test,mapped.test,nat64.test
ALLOW=$ALLOW,cgnat.test,doc.test,plain.test

mkfifo "$T/a.in"
"$PT" front -s "$T/state" -H "$MAP" -j job-a -a "$ALLOW" < "$T/a.in" > "$T/a.out" 2>&1 &
FRONT_A=$!
PIDS="$PIDS $FRONT_A"
exec 8> "$T/a.in"
wait_for grep -q '^port ' "$T/a.out" || { echo "Bail out! front"; cat "$T/a.out"; exit 99; }
P=$(sed -n 's/^port //p' "$T/a.out")

# req PORT TEXT: send raw bytes (Python escapes), print the status code
req() {
	"$PY" -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
d = b""
try:
	while b"\r\n" not in d:
		c = s.recv(4096)
		if not c: break
		d += c
except Exception: pass
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/1.1 ") else "closed")' "$1" "$2"
}

# reqr PORT TEXT: the same, and the proxy's reason (X-Airlox-Egress) or -
reqr() {
	"$PY" -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
d = b""
try:
	while b"\r\n\r\n" not in d:
		c = s.recv(4096)
		if not c: break
		d += c
except Exception: pass
why = [l.split(b": ", 1)[1].decode() for l in d.split(b"\r\n")
    if l.lower().startswith(b"x-airlox-egress: ")]
print(d.split(b" ")[1].decode() if d.startswith(b"HTTP/1.") else "closed",
    why[0] if why else "-")' "$1" "$2"
}

tls() {
	curl -s -o "$T/body" -w '%{http_connect} %{http_code}' --max-time 20 \
	    --proxy "http://127.0.0.1:$P" --cacert "$T/cert.pem" "$@"
}

is "$(tls https://allowed.test/)" "200 200" "an allowed name is served through the proxy (TLS to the test server)"
has "$(cat "$T/body")" "s_server" "the page is the test server's"
is "$(tls https://www.allowed.test/)" "200 200" ".allowed.test covers a subdomain"
is "$(tls https://denied.test/)" "403 000" "a name off the list is refused"
is "$(tls https://allowed.test.evil.test/)" "403 000" "a name that only starts like an allowed one is refused"

for t in 1.1.1.1:443 '[::1]:443' 2130706433:443 0x7f.1:443 017700000001:443 \
    127.1:443 169.254.169.254:443 0xA9.0xFE.0xA9.0xFE:443 '[::ffff:a9fe:a9fe]:443'; do
	is "$(req "$P" "CONNECT $t HTTP/1.1\r\nHost: $t\r\n\r\n")" 403 "IP literal $t refused"
done
for h in private meta loop mapped nat64 cgnat doc; do
	is "$(req "$P" "CONNECT $h.test:443 HTTP/1.1\r\n\r\n")" 403 \
	    "$h.test (allowed, resolves to a non-public address) refused"
done
is "$(req "$P" "CONNECT allowed.test:22 HTTP/1.1\r\n\r\n")" 403 "CONNECT to port 22 refused"
is "$(req "$P" "CONNECT allowed.test:8443 HTTP/1.1\r\n\r\n")" 403 "CONNECT to port 8443 refused"
is "$(req "$P" "CONNECT allowed.test HTTP/1.1\r\n\r\n")" 403 "CONNECT without a port refused"
is "$(req "$P" "CONNECT ALLOWED.TEST:443 HTTP/1.1\r\n\r\n")" 200 "names are compared lower-cased"

# Inside an allowed tunnel, the first record must be a ClientHello naming
# the CONNECT host: no fronting another name on the same server.
HELLO="$PY $top_srcdir/tests/runnerd/hello.py"
# sclient ARGS...: openssl s_client through the proxy to allowed.test
sclient() {
	echo Q | timeout 60 openssl s_client -proxy "127.0.0.1:$P" \
	    -connect allowed.test:443 -CAfile "$T/cert.pem" \
	    -verify_return_error "$@" 2>&1
}
out=$(sclient -servername other.test)
has "$out" "alert access denied" "s_client -servername other.test in a tunnel to allowed.test: refused"
lacks "$out" "BEGIN CERTIFICATE" "and no certificate of the far end came back"
out=$(sclient -noservername)
has "$out" "alert access denied" "s_client -noservername: refused"
out=$(sclient -servername allowed.test -verify_hostname allowed.test)
has "$out" "Verify return code: 0 (ok)" "s_client -servername allowed.test: the handshake completes"
is "$($HELLO "$P" allowed.test --sni other.test)" alert:49 "a hand-made ClientHello for another name: access_denied alert"
is "$($HELLO "$P" allowed.test --no-sni)" alert:49 "a ClientHello without a server name: refused"
is "$($HELLO "$P" allowed.test --sni other.test --ech)" alert:49 "an ECH hello whose outer name differs: refused"
is "$($HELLO "$P" allowed.test --ech)" tls:22 "an ECH hello whose outer name matches reaches the server"
is "$($HELLO "$P" allowed.test --sni ALLOWED.Test.)" tls:22 "the name is compared case-folded, without its trailing dot"
is "$($HELLO "$P" allowed.test --sni allowed.test.evil.test)" alert:49 "a longer name is a mismatch"
is "$($HELLO "$P" www.allowed.test --sni allowed.test)" alert:49 "another allowed name is a mismatch too"
is "$($HELLO "$P" allowed.test --plain 'GET / HTTP/1.1\r\nHost: other.test\r\n\r\n')" http:403 \
    "plain HTTP in a tunnel to port 443: 403"
is "$($HELLO "$P" allowed.test --plain '\x16\x03\x01\x00\x05\x02\x00\x00\x01\x00')" http:403 \
    "a handshake record that is not a ClientHello: 403"
is "$($HELLO "$P" allowed.test --sni other.test --record 7 --segment 3)" alert:49 \
    "a hello for another name in 7-byte records, 3-byte segments: refused"
is "$($HELLO "$P" allowed.test --python "$T/cert.pem" --record 40 --segment 17)" handshake:ok \
    "a real ClientHello in 40-byte records, 17-byte segments: the handshake completes"
is "$($HELLO "$P" allowed.test --python "$T/cert.pem" --segment 1)" handshake:ok \
    "a real ClientHello one byte at a time: the handshake completes"
is "$($HELLO "$P" allowed.test --pad 4000)" tls:22 "a 4 KiB hello for the name reaches the server"
is "$($HELLO "$P" allowed.test --pad 4000 --record 1 --bound 24576)" http:403 \
    "the same in 1-byte records, past the 24 KiB peek bound: refused"
is "$(req "$P" "GET http://plain.test/ HTTP/1.1\r\nHost: plain.test\r\n\r\n")" 403 \
    "plain HTTP refused when not enabled for the job"
is "$(req "$P" "POST http://plain.test/ HTTP/1.1\r\nContent-Length: 0\r\n\r\n")" 405 "POST refused"
is "$(req "$P" "DELETE x HTTP/1.1\r\n\r\n")" 405 "other methods refused"
is "$(req "$P" "garbage\r\n\r\n")" 400 "a malformed request line refused"
big=$("$PY" -c 'print("X-Pad: " + "a" * 9000)')
is "$(req "$P" "CONNECT allowed.test:443 HTTP/1.1\r\n$big\r\n\r\n")" 431 "a header over 8 KiB refused"
many=$("$PY" -c 'print("".join("X-H%d: v\\r\\n" % i for i in range(100)), end="")')
is "$(req "$P" "CONNECT allowed.test:443 HTTP/1.1\r\n$many\r\n")" 431 "100 header lines refused"

# A slow client (slowloris) is cut at the request timeout while others
# are served.
"$PY" -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t0 = time.time(); code = "none"
for ch in "CONNECT allowed.test:443 HTTP/1.1\r\nX-Slow: " + "a" * 200:
	try:
		s.sendall(ch.encode()); time.sleep(0.25)
	except Exception: break
	s.settimeout(0.01)
	try:
		d = s.recv(100)
		code = d.split(b" ")[1].decode() if d else "closed"; break
	except socket.timeout: pass
print(code, int(time.time() - t0))' "$P" > "$T/slow" &
SLOW=$!
# A tunnel that never sends its hello is cut at the hello timeout.
$HELLO "$P" allowed.test --plain '' > "$T/silent" &
SILENT=$!
is "$(tls https://allowed.test/)" "200 200" "served while a slow client is connected"
wait $SLOW
set -- $(cat "$T/slow")
is "$1" 408 "the slow client gets 408"
# (Not before the ~10 s request timeout; a loaded machine may cut it later,
# but well before the 50 s the client needs to send its whole head.)
[ "${2:-99}" -ge 9 ] && [ "${2:-99}" -le 45 ]; ok $? "after the ~10 s request timeout (took ${2}s)"
wait $SILENT
is "$(cat "$T/silent")" alert:49 "a tunnel without a ClientHello is closed after the hello timeout"

# The per-job connection cap: 32 idle connections, the 33rd gets 503.
got=$("$PY" -c 'import socket, sys, time
ss = [socket.create_connection(("127.0.0.1", int(sys.argv[1]))) for i in range(32)]
time.sleep(1)
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
d = s.recv(100)
print(d.split(b" ")[1].decode() if d else "closed")
for x in ss: x.close()' "$P")
is "$got" 503 "the 33rd concurrent connection of a job gets 503"
# Once it has seen them closed, the proxy serves the job again.
serves() { [ "$(tls https://allowed.test/)" = "200 200" ]; }
wait_for serves
ok $? "the proxy still serves afterwards"

echo log >&8
wait_for grep -q '^count ' "$T/a.out" || true
logc=$(sed -n 's/^count \([0-9]*\) .*/\1/p' "$T/a.out")
log=$(cat "$T/a.out")
has "$log" '"host":"denied.test","port":443,"method":"CONNECT","reason":"not_allowed"' \
    "denied.log records the denied name, port and reason"
has "$log" '"job":"job-a"' "denied.log records the job"
has "$log" '"time":"20' "denied.log records the time"
has "$log" '"host":"169.254.169.254","port":443,"method":"CONNECT","reason":"ip_literal"' \
    "the metadata address is recorded as an IP literal"
has "$log" '"host":"private.test","port":443,"method":"CONNECT","reason":"non_public_address"' \
    "a private resolution is recorded"
has "$log" '"reason":"too_many_connections"' "the connection cap is recorded"
has "$log" '"host":"allowed.test","port":443,"method":"CONNECT","reason":"sni_mismatch","sni":"other.test"' \
    "a fronting attempt is recorded with both names"
has "$log" '"host":"allowed.test","port":443,"method":"CONNECT","reason":"no_sni"' \
    "a hello without a name is recorded"
has "$log" '"host":"allowed.test","port":443,"method":"CONNECT","reason":"not_tls"' \
    "plain bytes in a tunnel are recorded"
has "$log" '"host":"allowed.test","port":443,"method":"CONNECT","reason":"hello_timeout"' \
    "a tunnel without a hello is recorded"
[ "${logc:-0}" -ge 30 ]; ok $? "the log holds every refusal ($logc)"
echo end >&8
wait_for grep -q '^denied ' "$T/a.out" || true
is "$(sed -n 's/^denied \([0-9]*\) .*/\1/p' "$T/a.out")" "$logc" \
    "the job's denied count (for its result) matches the log"
exec 8>&-
if [ "$(id -u)" = 0 ]; then
	is "$(stat -c %u "$T/state/egress")/$(stat -c %u "$T/state/egress/denied.log")" \
	    1999999999/1999999999 "as root, the proxy runs as its own unprivileged uid"
fi
is "$(stat -c %a "$T/state/egress")" 700 "the proxy's log dir is 0700"

# Plain HTTP, enabled for a second job.
mkfifo "$T/b.in"
"$PT" front -s "$T/state" -H "$MAP" -j job-b -P -a plain.test < "$T/b.in" > "$T/b.out" 2>&1 &
FRONT_B=$!
PIDS="$PIDS $FRONT_B"
exec 9> "$T/b.in"
wait_for grep -q '^port ' "$T/b.out" || { echo "Bail out! front b"; exit 99; }
PB=$(sed -n 's/^port //p' "$T/b.out")
body=$(curl -s --max-time 20 --proxy "http://127.0.0.1:$PB" http://plain.test/index.html)
is "$body" "plain-page-$$" "plain GET served when enabled"
is "$(req "$PB" "GET http://plain.test:8080/ HTTP/1.1\r\n\r\n")" 403 "plain GET to another port refused"
is "$(req "$PB" "GET http://other.test/ HTTP/1.1\r\n\r\n")" 403 "plain GET to a name off the list refused"
is "$(req "$PB" "GET http://plain.test/ HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")" 400 "a GET with a body refused"
is "$(req "$PB" "GET http://user@plain.test/ HTTP/1.1\r\n\r\n")" 403 "userinfo in the URL refused"
is "$(reqr "$PB" "GET http://plain.test/ HTTP/1.1\r\nHost : other.test\r\n\r\n")" "400 bad_request" \
    "a space before a header's colon refused (it would reach the origin as a second Host)"
is "$(reqr "$PB" "GET http://plain.test/ HTTP/1.1\r\n\rHost: other.test\r\n\r\n")" "400 bad_request" \
    "a header line after a bare CR refused (it would reach the origin)"
is "$(reqr "$PB" "GET http://plain.test/ HTTP/1.1\r\nX-Ok: 1\r\n\r\n")" "200 -" \
    "a plain GET with an ordinary header is served"
is "$(req "$PB" "CONNECT allowed.test:443 HTTP/1.1\r\n\r\n")" 403 "the second job's list is its own"
echo log >&9
wait_for grep -q '^count ' "$T/b.out" || true
lacks "$(cat "$T/b.out")" '"job":"job-a"' "a job's denials are not shown for another job"
exec 9>&-
# Both fronts stop on EOF; once they have exited, their output holds any
# sanitizer report.
wait "$FRONT_A" "$FRONT_B"

# A job's id is checked by the one rule of the sandbox (alx_job_id_valid):
# at most 64 characters, here as in the sandbox.
ID64=$(printf '%064d' 0 | tr 0 a)
"$PT" front -s "$T/state" -H "$MAP" -j "$ID64" -a allowed.test </dev/null \
    >"$T/id64.out" 2>&1
is "$?:$(head -c 5 "$T/id64.out")" "0:port " "a job id of 64 characters is taken"
"$PT" front -s "$T/state" -H "$MAP" -j "${ID64}a" -a allowed.test </dev/null \
    >"$T/id65.out" 2>&1
is "$?:$(cat "$T/id65.out")" "1:job: bad_request" "one of 65 is refused"
lacks "$(cat "$T/a.out" "$T/b.out")" "Sanitizer" "no sanitizer report from the runner side or the proxy"
lacks "$(cat "$T/a.out" "$T/b.out")" "runtime error" "no undefined behaviour reported"

done_testing
