#!/usr/bin/env python3
"""uploads.py HOST:PORT PATH N SIZE: N uploads of SIZE bytes at once, to
PATH, each from its own address (127.0.0.2 and on), sending as fast as the
relay reads. Every one must get an answer (a status line), whatever it is.
Prints "answered N statuses S1,S2,..." (the distinct statuses)."""
import selectors
import socket
import sys

addr, path, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4])
host, port = addr.rsplit(":", 1)
head = ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n"
        "Connection: close\r\n\r\n" % (path, addr, size)).encode()
piece = b"{" * 65536
sel = selectors.DefaultSelector()
state = {}
for i in range(n):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.%d.%d" % (i // 250, 2 + i % 250), 0))
    s.setblocking(False)
    s.connect_ex((host, int(port)))
    state[s] = {"out": head, "left": size, "in": b"", "done": False}
    sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
open_ = n
while open_ > 0:
    events = sel.select(timeout=120)
    if not events:
        break
    for key, mask in events:
        s, st = key.fileobj, state[key.fileobj]
        if mask & selectors.EVENT_WRITE:
            if not st["out"] and st["left"] > 0:
                k = min(st["left"], len(piece))
                st["out"] = piece[:k]
                st["left"] -= k
            if st["out"]:
                try:
                    sent = s.send(st["out"])
                    st["out"] = st["out"][sent:]
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    st["out"], st["left"] = b"", 0
            if not st["out"] and st["left"] == 0:
                sel.modify(s, selectors.EVENT_READ)
        if mask & selectors.EVENT_READ:
            try:
                chunk = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            st["in"] += chunk
            if not chunk or b"\r\n\r\n" in st["in"]:
                sel.unregister(s)
                s.close()
                st["done"] = True
                open_ -= 1
statuses = []
for st in state.values():
    try:
        statuses.append(int(st["in"].split(b" ", 2)[1]))
    except (IndexError, ValueError):
        statuses.append(0)
answered = sum(1 for x in statuses if x)
print("answered %d statuses %s" % (answered,
      ",".join(str(x) for x in sorted(set(statuses)))))
sys.exit(0 if answered == n else 1)
