#!/usr/bin/env python3
"""conns.py HOST:PORT N OUTFILE: open N TCP connections and hold them.

After opening them (sending nothing) it waits up to 2 s for the server to
close any, then writes "open=X closed=Y" to OUTFILE and holds the open ones
until killed. Used to test the relay's connection caps.
"""
import select
import socket
import sys
import time

host, port = sys.argv[1].rsplit(":", 1)
n = int(sys.argv[2])
socks = []
for _ in range(n):
    s = socket.create_connection((host, int(port)), timeout=5)
    socks.append(s)
closed = set()
deadline = time.time() + 2.0
while time.time() < deadline:
    live = [s for s in socks if s not in closed]
    r, _, _ = select.select(live, [], [], 0.1)
    for s in r:
        try:
            if s.recv(1) == b"":
                closed.add(s)
        except OSError:
            closed.add(s)
    # Stop early once the picture is stable for a moment.
    if not r and time.time() > deadline - 1.5:
        break
with open(sys.argv[3], "w") as f:
    f.write("open=%d closed=%d\n" % (n - len(closed), len(closed)))
while True:
    time.sleep(60)
