#!/usr/bin/env python3
"""sse-load.py: SSE subscriber side of bench/relay-vs-nchan.sh (stdlib only).

  sse-load.py hold ADDR PATH AUTH LASTID N READYFILE
      N subscribers that read everything; READYFILE gets "ready" once all
      have their response headers; on SIGTERM prints "events=E" (SSE "data:"
      lines seen over all subscribers).
  sse-load.py fanout ADDR PATH AUTH LASTID N PUBPATH ROUNDS REQDIR
      N subscribers; then ROUNDS times: post REQDIR/body.K (with the
      Authorization value in REQDIR/auth.K when it exists) on one
      keep-alive connection, and time, per subscriber, from just before
      the request is written to the first byte of the event it receives.
      Prints samples, p50 and p99 in milliseconds.
  sse-load.py mem PID ADDR PATH AUTH LASTID N
      RSS of PID (VmRSS) before and after opening N subscribers (all with
      their response headers, then 2 s settled); prints the delta per
      connection in bytes.
AUTH and LASTID are "-" for none. Loopback IPv4 only. With SSE_TLS=1 in the
environment, subscribers speak TLS (no certificate check: loopback test).
"""
import os
import resource
import select
import signal
import socket
import ssl
import sys
import time


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def request(addr, path, auth, lastid):
    h = "GET %s HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n" % (
        path, addr)
    if auth != "-":
        h += "Authorization: %s\r\n" % auth
    if lastid != "-":
        h += "Last-Event-ID: %s\r\n" % lastid
    return (h + "\r\n").encode()


class Sub:
    __slots__ = ("sock", "head", "buf")

    def __init__(self, sock):
        self.sock = sock
        self.head = False
        self.buf = b""


def open_subs(addr, path, auth, lastid, n, batch=250):
    """N subscribers, all past their response headers (status 200)."""
    host, port = addr.rsplit(":", 1)
    req = request(addr, path, auth, lastid)
    ep = select.epoll()
    subs = {}
    waiting = 0
    opened = 0
    deadline = time.monotonic() + 120
    tls = None
    if os.environ.get("SSE_TLS") == "1":
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        tls.check_hostname = False
        tls.verify_mode = ssl.CERT_NONE
    while opened < n or waiting:
        while opened < n and waiting < batch:
            s = socket.create_connection((host, int(port)))
            if tls is not None:
                s = tls.wrap_socket(s)
            s.sendall(req)
            s.setblocking(False)
            subs[s.fileno()] = Sub(s)
            ep.register(s.fileno(), select.EPOLLIN)
            opened += 1
            waiting += 1
        for fd, _ in ep.poll(1):
            sub = subs[fd]
            try:
                d = sub.sock.recv(65536)
            except (BlockingIOError, ssl.SSLWantReadError):
                continue
            if not d:
                sys.exit("sse-load: a subscriber was closed (%d open)"
                         % (opened - 1))
            if sub.head:
                continue
            sub.buf += d
            if b"\r\n\r\n" in sub.buf:
                status = sub.buf.split(b" ", 2)[1]
                if status != b"200":
                    sys.exit("sse-load: subscriber got %s: %r"
                             % (status.decode(), sub.buf[:300]))
                sub.head = True
                sub.buf = b""
                waiting -= 1
        if time.monotonic() > deadline:
            sys.exit("sse-load: subscribers not ready in 120 s")
    return ep, subs


def rss(pid):
    """VmRSS, RssAnon, RssFile, RssShmem of PID in bytes."""
    keys = ("VmRSS:", "RssAnon:", "RssFile:", "RssShmem:")
    v = dict.fromkeys(keys, 0)
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            k = line.split(None, 1)[0]
            if k in v:
                v[k] = int(line.split()[1]) * 1024
    return [v[k] for k in keys]


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def cmd_hold(addr, path, auth, lastid, n, ready):
    ep, subs = open_subs(addr, path, auth, lastid, int(n))
    events = [0]
    stop = [False]

    def term(*_):
        stop[0] = True
    signal.signal(signal.SIGTERM, term)
    with open(ready, "w") as f:
        f.write("ready\n")
    tail = {fd: b"" for fd in subs}
    while not stop[0]:
        try:
            evs = ep.poll(0.2)
        except InterruptedError:
            continue
        for fd, _ in evs:
            try:
                d = subs[fd].sock.recv(262144)
            except BlockingIOError:
                continue
            if not d:
                sys.exit("sse-load: a subscriber was closed")
            # "data:" is 5 bytes: a 4-byte tail never holds a whole one
            d = tail[fd] + d
            events[0] += d.count(b"data:")
            tail[fd] = d[-4:]
    print("events=%d" % events[0])


def cmd_fanout(addr, path, auth, lastid, n, pubpath, rounds, reqdir):
    n = int(n)
    ep, subs = open_subs(addr, path, auth, lastid, n)
    host, port = addr.rsplit(":", 1)
    pub = socket.create_connection((host, int(port)))
    pub.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    lat = []
    worst = []
    for k in range(int(rounds)):
        with open(os.path.join(reqdir, "body.%d" % k), "rb") as f:
            body = f.read()
        h = "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: " \
            "application/json\r\nContent-Length: %d\r\n" % (
                pubpath, addr, len(body))
        ap = os.path.join(reqdir, "auth.%d" % k)
        if os.path.exists(ap):
            with open(ap) as f:
                h += "Authorization: %s\r\n" % f.read().strip()
        req = h.encode() + b"\r\n" + body
        # drain anything pending (nothing is expected)
        for fd, _ in ep.poll(0):
            try:
                subs[fd].sock.recv(262144)
            except BlockingIOError:
                pass
        got = set()
        this = []
        t0 = time.monotonic()
        pub.sendall(req)
        deadline = t0 + 30
        while len(got) < n:
            for fd, _ in ep.poll(1):
                t = time.monotonic()
                try:
                    d = subs[fd].sock.recv(262144)
                except BlockingIOError:
                    continue
                if not d:
                    sys.exit("sse-load: a subscriber was closed")
                if fd not in got:
                    got.add(fd)
                    this.append((t - t0) * 1000.0)
            if time.monotonic() > deadline:
                sys.exit("sse-load: round %d: %d of %d received"
                         % (k, len(got), n))
        resp = pub.recv(65536)
        if not resp.startswith(b"HTTP/1.1 2"):
            sys.exit("sse-load: publish refused: %r" % resp[:200])
        lat.extend(this)
        worst.append(pct(this, 99))
        time.sleep(0.05)
    print("samples=%d p50_ms=%.2f p99_ms=%.2f max_ms=%.2f"
          % (len(lat), pct(lat, 50), pct(lat, 99), max(lat)))


def cmd_mem(pid, addr, path, auth, lastid, n):
    n = int(n)
    before = rss(pid)
    ep, subs = open_subs(addr, path, auth, lastid, n)
    time.sleep(2)
    after = rss(pid)
    print("connections=%d rss_before=%d rss_after=%d per_conn=%.0f "
          "anon_per_conn=%.0f file_per_conn=%.0f shmem_per_conn=%.0f"
          % (n, before[0], after[0], (after[0] - before[0]) / float(n),
             (after[1] - before[1]) / float(n),
             (after[2] - before[2]) / float(n),
             (after[3] - before[3]) / float(n)))


def main():
    raise_nofile()
    a = sys.argv[1:]
    if len(a) == 7 and a[0] == "hold":
        cmd_hold(*a[1:])
    elif len(a) == 9 and a[0] == "fanout":
        cmd_fanout(*a[1:])
    elif len(a) == 7 and a[0] == "mem":
        cmd_mem(*a[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
