#!/usr/bin/env python3
"""conns.py HOST:PORT N OUTFILE: open N TCP connections and hold them.

After opening them it asks GET /v1/health on each and waits (up to 120 s,
however slow the machine) until every connection is decided: answered (the
relay holds it) or closed without an answer (the relay refused it). Then
it writes "open=X closed=Y" to OUTFILE and holds the open ones until
killed. Used to test the relay's connection caps; no outcome depends on
how fast the relay runs.
"""
import os
import select
import socket
import sys
import time

host, port = sys.argv[1].rsplit(":", 1)
n = int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.create_connection((host, int(port)), timeout=30)
    socks.append(s)
closed = set()
answered = set()
for s in socks:
    try:
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: %s\r\n\r\n"
                  % sys.argv[1].encode())
    except OSError:
        closed.add(s)
deadline = time.time() + 120
while len(closed) + len(answered) < n and time.time() < deadline:
    live = [s for s in socks if s not in closed and s not in answered]
    r, _, _ = select.select(live, [], [], 1.0)
    for s in r:
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if data == b"":
            closed.add(s)
        else:
            answered.add(s)
with open(sys.argv[3] + ".tmp", "w") as f:
    f.write("open=%d closed=%d\n" % (n - len(closed), len(closed)))
os.rename(sys.argv[3] + ".tmp", sys.argv[3])
while True:
    time.sleep(60)
