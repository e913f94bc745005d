#!/usr/bin/env python3
"""intake.py HOST:PORT CASE: one check of what the relay reads before a
request is handled (relayd/relay-gate.c), against a relay started by
intake.sh with --body-memory 8M --max-body-size 1M --header-timeout 2
--timeout 3. Prints one line, "ok DETAIL" or "fail DETAIL"; exit 0 or 1.
Waits on replies and closes, each with a generous deadline, never on a
fixed sleep. Cases:

early413   a 5 MB Content-Length with 10 bytes sent: 413 before the rest
chunked    a chunked body: 411
budget     ten 1 MB heads from ten addresses, no body yet: the three past
           the budget (7/8 of 8M) get 503 with Retry-After at once; the
           seven others, once their bodies come, get an answer that is not
           503; then a new upload is taken again
share      three 1 MB heads from one address: the third gets 503 (an
           address may hold a quarter of the budget)
slowhead   a head sent one line every 0.5 s is answered 408 and closed
           within its deadline, though each line comes within --timeout
"""
import socket
import sys
import time

addr, case = sys.argv[1], sys.argv[2]
host, port = addr.rsplit(":", 1)
port = int(port)
MB = 1000 * 1000


def conn(src=None):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if src:
        s.bind((src, 0))
    s.settimeout(30)
    s.connect((host, port))
    return s


def head(path, length, extra=""):
    return ("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n%s\r\n"
            % (path, addr, length, extra)).encode()


def reply(s, deadline):
    """The reply's head and body read so far (until it is whole, the peer
    closes, or the deadline)."""
    buf = b""
    while time.time() < deadline:
        s.settimeout(max(0.05, deadline - time.time()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except (ConnectionResetError, BrokenPipeError):
            break
        if not chunk:
            break
        buf += chunk
        if b"\r\n\r\n" in buf:
            hd, _, body = buf.partition(b"\r\n\r\n")
            for line in hd.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    if len(body) >= int(line.split(b":")[1]):
                        return buf
    return buf


def status(r):
    try:
        return int(r.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def line1(r):
    """The status line of a reply, for a message."""
    return r.split(b"\r\n", 1)[0].decode("latin-1") or "(nothing)"


def done(good, detail):
    print(("ok " if good else "fail ") + detail)
    sys.exit(0 if good else 1)


def early413():
    s = conn()
    s.sendall(head("/v1/sessions", 5 * MB) + b"0123456789")
    r = reply(s, time.time() + 20)
    done(status(r) == 413 and b'"too_large"' in r,
         "answered before the body: " + line1(r))


def chunked():
    s = conn()
    s.sendall(b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    r = reply(s, time.time() + 20)
    done(status(r) == 411, "chunked: " + line1(r))


def waiting_replies(socks, want, deadline):
    """Replies that come before the deadline, until `want` of them."""
    got = {}
    while len(got) < want and time.time() < deadline:
        for i, s in enumerate(socks):
            if i in got:
                continue
            s.setblocking(False)
            try:
                data = s.recv(65536, socket.MSG_PEEK)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            s.setblocking(True)
            if data:
                got[i] = reply(s, time.time() + 10)
        time.sleep(0.05)
    return got


def budget():
    path = "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/items"
    socks = []
    for i in range(10):
        s = conn("127.0.0.%d" % (10 + i))
        s.sendall(head(path, MB))
        socks.append(s)
    refused = waiting_replies(socks, 3, time.time() + 20)
    bad = [i for i, r in refused.items()
           if status(r) != 503 or b"Retry-After: 1" not in r]
    if len(refused) != 3 or bad:
        done(False, "3 refused at once, with 503 and Retry-After: %r" %
             {i: line1(r) for i, r in refused.items()})
    taken = [i for i in range(10) if i not in refused]
    for i in taken:
        socks[i].sendall(b"x" * MB)
    answers = [status(reply(socks[i], time.time() + 30)) for i in taken]
    if any(a in (0, 503) for a in answers):
        done(False, "the seven taken get an answer, not 503: %r" % answers)
    s = conn("127.0.0.30")
    s.sendall(head(path, MB) + b"y" * MB)
    again = status(reply(s, time.time() + 30))
    done(again not in (0, 503), "refused %s with 503 and Retry-After, the "
         "others answered %s, then one more answered %d" %
         (sorted(refused), sorted(set(answers)), again))


def share():
    path = "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/items"
    socks = [conn("127.0.0.50") for _ in range(3)]
    for s in socks:
        s.sendall(head(path, MB))
    refused = waiting_replies(socks, 2, time.time() + 10)
    done(len(refused) == 1 and
         status(list(refused.values())[0]) == 503,
         "one address, three 1 MB bodies: one refused: %r" %
         [line1(r) for r in refused.values()])


def slowhead():
    s = conn()
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
    t0 = time.time()
    r = b""
    for i in range(60):          # 30 s of lines, 0.5 s apart
        try:
            s.sendall(b"X-Line-%d: x\r\n" % i)
        except (BrokenPipeError, ConnectionResetError):
            break
        s.settimeout(0.5)
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        except ConnectionResetError:
            break
        if not chunk:
            break
        r += chunk
    r += reply(s, time.time() + 5)
    done(status(r) == 408, "cut after %.1f s of lines: %s" %
         (time.time() - t0, line1(r)))


{"early413": early413, "chunked": chunked, "budget": budget,
 "share": share, "slowhead": slowhead}[case]()
