#!/bin/sh
# Network of the local sandbox: loopback only, no route out, no host port.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local

# A listener on the host's loopback, to prove it is unreachable inside.
"$PY" -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
s.settimeout(60)
while True:
	try: c, _ = s.accept(); c.close()
	except Exception: break' > "$T/port" &
LPID=$!
trap 'kill $LPID 2>/dev/null; cleanup' EXIT INT TERM
i=0
while [ ! -s "$T/port" ] && [ $i -lt 2400 ]; do i=$((i+1)); "$PY" -c 'import time; time.sleep(0.05)'; done
PORT=$(head -1 "$T/port")
[ -n "$PORT" ] || { echo "Bail out! no host listener"; exit 99; }
"$PROBE" connect 127.0.0.1 "$PORT" >/dev/null; ok $? "the host listener is reachable outside (test can fail)"

run_job -- /bin/sh -c "cat /proc/net/dev; ./probe connect 1.1.1.1 53;
    ./probe connect 127.0.0.1 $PORT; ./probe udp 8.8.8.8 53;
    getent hosts example.com || echo DNS-FAILED; cat /proc/net/route"
out=$(jget stdout)
is "$(printf %s "$out" | awk -F: '/^ *[^ ]+: *[0-9]/ {gsub(/ /, "", $1); print $1}')" \
    lo "only lo in /proc/net/dev"
has "$out" "connect: failed: Network is unreachable" "connect to 1.1.1.1:53 fails"
has "$out" "connect: failed: Connection refused" "the host's 127.0.0.1 port is not reachable"
has "$out" "sendto: failed: Network is unreachable" "UDP to 8.8.8.8:53 fails"
has "$out" "DNS-FAILED" "DNS fails"
is "$(printf %s "$out" | grep -c '^lo\|^eth\|^en')" 0 "no route"

run_job -- python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
c = socket.create_connection(s.getsockname()); a, _ = s.accept()
c.sendall(b"ping"); print(a.recv(4).decode())'
is "$(jget stdout)" "ping" "loopback is up inside"

done_testing
