#!/usr/bin/env python3
"""badinput.py HOST:PORT CLI DIR SID: a catalogue of malformed and hostile
requests against a running relay, each with the status it must get, then a
check that the relay still serves. Prints TAP lines without the plan
(the calling script adds its own). DIR is relay-cli's session directory
(participants bob: sender, carol: observer, joined)."""
import json
import re
import socket
import subprocess
import sys
import time

addr, cli, sdir, sid = sys.argv[1:5]
host, port = addr.rsplit(":", 1)
n = 0
failed = 0


def ok(cond, desc, extra=""):
    global n, failed
    n += 1
    print("%sok %d - %s" % ("" if cond else "not ", n, desc))
    if not cond:
        failed += 1
        if extra:
            print("#   " + extra.replace("\n", "\n#   "))
    sys.stdout.flush()


def raw(data, timeout=5.0, wait_close=False):
    """Send bytes, read until the peer closes or the timeout; the reply."""
    s = socket.create_connection((host, int(port)), timeout=timeout)
    try:
        s.sendall(data)
        if not wait_close:
            s.shutdown(socket.SHUT_WR)
        buf = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            buf += chunk
        return buf
    finally:
        s.close()


def status(reply):
    try:
        return int(reply.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def auth(who, method, path, body=b""):
    with open(sdir + "/body.tmp", "wb") as f:
        f.write(body)
    return subprocess.run([cli, "auth", sdir, who, method, path,
                           sdir + "/body.tmp", addr], check=True,
                          capture_output=True).stdout.decode().strip()


def req(method, path, body=b"", headers=None, who=None, expect=(),
        desc="", err=None):
    h = {"Host": addr, "Connection": "close"}
    if who is not None:
        h["Authorization"] = auth(who, method, path, body)
    if headers:
        h.update(headers)
    if body or method in ("POST", "PUT"):
        h.setdefault("Content-Length", str(len(body)))
    head = "%s %s HTTP/1.1\r\n" % (method, path)
    head += "".join("%s: %s\r\n" % kv for kv in h.items()) + "\r\n"
    reply = raw(head.encode("latin-1") + body)
    st = status(reply)
    good = st in expect
    if good and err is not None:
        b = reply.split(b"\r\n\r\n", 1)[-1]
        try:
            good = json.loads(b.decode()).get("error") in err
        except ValueError:
            good = False
    ok(good, "%s -> %s" % (desc, "/".join(map(str, expect))),
       reply[:300].decode("latin-1"))


S = "/v1/sessions/" + sid
item = open(sdir + "/item.json", "rb").read()
cert = open(sdir + "/bob.cert", "rb").read()
man = open(sdir + "/manifest.json", "rb").read()

# Session creation: bodies that are not a manifest.
for body, desc, err in [
        (b"", "empty body", None),
        (b"{", "truncated JSON", ["bad_json"]),
        (b"[]", "an array", None),
        (b"null", "null", None),
        (b'{"v":1}', "missing members", None),
        (b'{"v":2,"t":"manifest","key":"a","body":"a","sig":"a"}',
         "unknown version", None),
        (b'{"v":1,"v":1}', "duplicate keys", ["duplicate_key", "bad_json"]),
        (b'{"v":1,"t":"\xff\xfe"}', "invalid UTF-8", None),
        (b"[" * 200 + b"]" * 200, "nesting 200 deep", None),
        (b'{"v":1e999}', "a huge number", None),
        (b'{"v":1,\x00"t":1}', "a NUL byte", None),
        (b'{"v":"1","t":"manifest"}', "a string where a number goes", None),
        (cert, "a certificate instead of a manifest", None),
        (item, "an item instead of a manifest", None),
        (man.replace(b'"v":1', b'"v":1,"x":1', 1), "an extra member", None),
        (man.replace(b'"key":"', b'"key":"=', 1), "non-canonical base64",
         None),
        (man[:-20], "a truncated manifest", None)]:
    req("POST", "/v1/sessions", body, expect=(400, 401, 409),
        desc="create: " + desc, err=err)
req("POST", "/v1/sessions", b" " * 300000, expect=(400, 413),
    desc="create: a 300 KB body")

# Paths.
for path, exp, desc in [
        ("/v1/sessions/../health", (404,), "dot-dot segment"),
        ("/v1//health", (404,), "empty segment"),
        ("/V1/HEALTH", (404,), "wrong case"),
        ("/v1/sessions/%2e%2e/manifest", (404,), "encoded dot-dot"),
        ("/v1/sessions/AAAA/manifest", (404,), "short session id"),
        ("/v1/sessions/" + "A" * 23 + "/manifest", (404,), "long session id"),
        ("/v1/sessions/" + sid[:21] + "=/manifest", (404,), "padded id"),
        ("/v1/sessions/" + sid[:21] + "+/manifest", (404,), "non-url base64"),
        ("/" + "a" * 900, (404,), "a 900 byte path"),
        ("/" + "a" * 3000, (400, 413, 414), "a 3000 byte path"),
        ("/v1/health%00", (400,), "an encoded NUL"),
        ("/v1/health%", (400, 404), "a broken escape"),
        ("/v1/sessions/%C0%AE/manifest", (400, 404), "overlong UTF-8"),
        ("http://evil.example/v1/health", (200, 400, 404), "absolute form")]:
    req("GET", path, expect=exp, desc="path: " + desc)

# Methods.
req("PATCH", "/v1/sessions", expect=(405,), desc="PATCH on sessions",
    err=["method_not_allowed"])
req("PUT", "/v1/health", expect=(405,), desc="PUT on health")
req("OPTIONS", "/", expect=(404, 405), desc="OPTIONS /")
req("BREW", "/v1/health", expect=(400, 405, 501), desc="unknown method")

# Request signatures.
good = auth("bob", "GET", S + "/log")
parts = dict(p.split("=", 1) for p in good.split(" ", 1)[1].split(","))
for hdr, desc, err in [
        (None, "no Authorization", ["not_signed"]),
        ("Basic Ym9iOmJvYg==", "another scheme", None),
        ("Airlox", "a bare scheme", None),
        ("Airlox v=2,key=%s,t=%s,sig=%s" % (parts["key"], parts["t"],
                                           parts["sig"]), "version 2", None),
        ("Airlox v=1,key=AAAA,t=%s,sig=%s" % (parts["t"], parts["sig"]),
         "a short key", None),
        ("Airlox v=1,key=%s,t=soon,sig=%s" % (parts["key"], parts["sig"]),
         "a time that is not a number", None),
        ("Airlox v=1,key=%s,t=%s,sig=%s=" % (parts["key"], parts["t"],
                                            parts["sig"]), "padded signature",
         None),
        ("Airlox v=1,key=%s,t=%d,sig=%s" % (parts["key"], int(parts["t"]) + 1,
                                           parts["sig"]),
         "a time the signature does not cover", ["bad_signature"]),
        ("Airlox v=1,key=%s,t=%s,sig=%s,x=1" % (parts["key"], parts["t"],
                                               parts["sig"]),
         "an extra field", None)]:
    h = {} if hdr is None else {"Authorization": hdr}
    req("GET", S + "/log", headers=h, expect=(400, 401), desc="auth: " + desc,
        err=err)
req("GET", S + "/log?after=0", headers={"Authorization": good},
    expect=(401,), desc="auth: a signature without the query",
    err=["bad_signature"])
req("GET", "/v1/sessions/AAAAAAAAAAAAAAAAAAAAAA/log", who="bob",
    expect=(404,), desc="auth: an unknown session")

# Items.
for body, exp, desc, err in [
        (b"", (400,), "empty", None),
        (b"{", (400,), "bad JSON", ["bad_json"]),
        (cert, (400, 401), "a certificate", None),
        (item, (409,), "a replayed item", ["replayed", "bad_order"]),
        (item.replace(b'"body":"ey', b'"body":"eX', 1), (400, 401),
         "a flipped bit in the body", None),
        (item.replace(b'"t":"item"', b'"t":"claim"', 1), (400, 401),
         "the type changed", None),
        (item + b" " * 70000, (409, 413), "trailing white space", None),
        (item + b"x", (400,), "trailing garbage", None)]:
    req("POST", S + "/items", body, who="bob", expect=exp,
        desc="item: " + desc, err=err)
# An item post carries no request signature: the item's own decides.
okey = json.loads(man)["key"].encode()
req("POST", S + "/items", re.sub(rb'"key":"[^"]*"', b'"key":"' + okey + b'"',
                                 item, count=1), expect=(401,),
    desc="item: the owner's key put in the envelope", err=["bad_signature"])
req("POST", S + "/items", item, who="carol", expect=(409,),
    desc="item: an observer's request signature is not read", err=["replayed"])
req("GET", S + "/items/AAAAAAAAAAAAAAAAAAAAAA", who="bob", expect=(404,),
    desc="item: an unknown id")
req("GET", S + "/items/!!/chunks/0", who="bob", expect=(404,),
    desc="chunk: a bad id")
req("GET", S + "/log?after=-1", who="bob", expect=(400,),
    desc="log: a negative cursor")
req("GET", S + "/log?limit=100000", who="bob", expect=(400,),
    desc="log: a limit over 1000")
req("GET", S + "/log?wait=1e3", who="bob", expect=(400,),
    desc="log: a wait that is not an integer")
req("GET", S + "/stream", headers={"Last-Event-ID": "x"}, who="bob",
    expect=(400,), desc="stream: a bad Last-Event-ID")

# Transfer code endpoints.
req("GET", "/v1/codes/abc", expect=(404,), desc="code: not a number")
req("GET", "/v1/codes/99999999", expect=(404,), desc="code: too long")
req("POST", "/v1/codes/1/msgs", b'{"side":"a","seq":1,"data":"x"}',
    expect=(404,), desc="code: an unknown nameplate")
req("POST", "/v1/codes", b"{}", expect=(400,), desc="code: open without "
    "an object")

# The HTTP layer itself.
for data, exp, desc in [
        (b"HELLO\r\n\r\n", (400, 0), "a garbage request line"),
        (b"GET /v1/health HTTP/9.9\r\n\r\n", (400, 505, 0), "HTTP/9.9"),
        (b"GET /v1/health HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
         (400, 0), "Content-Length -1"),
        (b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
         b"Content-Length: 7\r\n\r\nhello", (400, 0),
         "two Content-Lengths"),
        (b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: "
         b"chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", (411,),
         "a chunked body (the relay wants a Content-Length)"),
        (b"GET /v1/health HTTP/1.1\r\nno colon here\r\n\r\n", (400, 0),
         "a header without a colon"),
        (b"GET /v1/health HTTP/1.1\r\n" + b"".join(
            b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(200)) +
         b"\r\n", (400, 413), "200 headers of 100 bytes")]:
    reply = raw(data)
    ok(status(reply) in exp, "http: %s -> %s" % (desc, "/".join(
        map(str, exp))), reply[:200].decode("latin-1"))

reply = raw(b"POST /v1/sessions HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 1000\r\n\r\n{\"v\":1")
ok(status(reply) in (0, 400), "http: a truncated body gets no success",
   reply[:200].decode("latin-1"))
reply = raw(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
            b"GET /v1/health/live HTTP/1.1\r\nHost: x\r\n"
            b"Connection: close\r\n\r\n", wait_close=True)
ok(reply.count(b"HTTP/1.1 200") == 2, "http: two pipelined requests, "
   "two answers", reply[:200].decode("latin-1"))

# Slowloris: headers that never end are cut off by the idle timeout.
t0 = time.time()
s = socket.create_connection((host, int(port)), timeout=15)
s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
try:
    closed = s.recv(100) is not None
except (socket.timeout, ConnectionResetError):
    closed = False
s.close()
ok(closed and time.time() - t0 < 10, "http: a slowloris is closed by the "
   "idle timeout (%.1f s)" % (time.time() - t0))

reply = raw(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
ok(status(reply) == 200, "the relay still serves after the catalogue")
print("# %d requests, %d failed" % (n, failed))
sys.exit(1 if failed else 0)
