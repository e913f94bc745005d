#!/usr/bin/env python3
"""churn.py HOST:PORT PATH AUTH N [CAFILE]: N connect/request/disconnect
cycles against one signed GET. For an SSE stream (a path ending in
/stream) each cycle waits for the 200 header, so the stream really started;
for a long-poll it closes at once, leaving a parked request behind. Half
the connections end with a reset (SO_LINGER 0), half with a FIN. With
CAFILE it speaks TLS. Prints the number of cycles done."""
import socket
import ssl
import sys

addr, path, auth, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cafile = sys.argv[5] if len(sys.argv) > 5 else None
host, port = addr.rsplit(":", 1)
ctx = None
if cafile:
    ctx = ssl.create_default_context(cafile=cafile)
req = ("GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n\r\n"
       % (path, addr, auth)).encode()
wait_headers = "/stream" in path
done = 0
for i in range(n):
    s = socket.create_connection((host, int(port)), timeout=10)
    if ctx is not None:
        s = ctx.wrap_socket(s, server_hostname=host)
    s.sendall(req)
    if wait_headers:
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
        if not buf.startswith(b"HTTP/1.1 200"):
            print("bad answer at %d: %r" % (i, buf[:80]))
            sys.exit(1)
    # Abrupt close: RST instead of FIN for half of them.
    if i % 2:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()
    done += 1
print(done)
