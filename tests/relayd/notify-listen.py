#!/usr/bin/env python3
"""notify-listen.py SOCKET OUTFILE: a fake NOTIFY_SOCKET for the tests.

Binds an AF_UNIX datagram socket at SOCKET and appends every message it
receives to OUTFILE, one line per KEY=VALUE, flushed at once, until killed.
"""
import os
import socket
import sys

path, out = sys.argv[1], sys.argv[2]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
with open(out, "a") as f:
    f.write("LISTENING=1\n")
    f.flush()
    while True:
        msg = s.recv(4096).decode("utf-8", "replace")
        for line in msg.split("\n"):
            f.write(line + "\n")
        f.flush()
