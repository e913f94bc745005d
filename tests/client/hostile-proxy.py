#!/usr/bin/env python3
"""hostile-proxy.py: a relay that lies, for tests/client/hostile.sh.

Forwards every request to the real relay and, depending on the mode in the
file named by argv[2] (read for every request), tampers with what it
serves: "flip" changes a byte of an item's signed body, "replay" serves an
item event again, "reorder" swaps two items of one author, "drop" leaves
out an author's first item, "chunk" flips a byte of a chunk, "manifest"
changes the first manifest, "forge" serves an item re-signed by a key
that is not a member, "slowput" holds every chunk upload for 4 seconds
(an honest but slow relay), "dropack" forwards each item POST but closes
the connection instead of answering the first time it sees that body (the
relay stored it; the client never heard). "none" passes everything through.
Usage: hostile-proxy.py RELAY_URL MODEFILE PORTFILE
"""
import base64
import hashlib
import http.client
import http.server
import json
import os
import sys
import time
import urllib.parse

RELAY = urllib.parse.urlsplit(sys.argv[1])
MODEFILE = sys.argv[2]
PORTFILE = sys.argv[3]


def mode():
    try:
        with open(MODEFILE) as f:
            return f.read().strip()
    except OSError:
        return "none"


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def item_events(events):
    return [e for e in events if e.get("type") == "item"]


def author(ev):
    return json.loads(b64d(ev["data"]["body"]))["author"]


def tamper_log(m, doc):
    evs = doc.get("events", [])
    items = item_events(evs)
    if not items:
        return doc
    if m == "flip":
        body = bytearray(b64d(items[0]["data"]["body"]))
        i = body.find(b'"time":') + 8
        body[i] = ord("1") if body[i] != ord("1") else ord("2")
        items[0]["data"]["body"] = b64e(bytes(body))
    elif m == "replay":
        dup = json.loads(json.dumps(items[0]))
        dup["cursor"] = evs[-1]["cursor"] + 1
        evs.append(dup)
        doc["next"] = dup["cursor"]
    elif m in ("reorder", "drop"):
        by = {}
        for e in items:
            by.setdefault(author(e), []).append(e)
        for chain in by.values():
            if len(chain) >= 2:
                a, b = chain[0], chain[1]
                if m == "reorder":
                    a["data"], b["data"] = b["data"], a["data"]
                else:
                    evs.remove(a)
                break
    elif m == "forge":
        # Another body signed by nobody in the session: the signature is
        # copied from a real item, so only the key lookup can catch it.
        fake = json.loads(json.dumps(items[0]))
        fake["data"]["key"] = b64e(bytes(32 * [7]))
        fake["cursor"] = evs[-1]["cursor"] + 1
        evs.append(fake)
    return doc


SEEN = set()


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        if self.command == "PUT" and "/chunks/" in self.path and \
                mode() == "slowput":
            time.sleep(4)
        conn = http.client.HTTPConnection(RELAY.hostname, RELAY.port,
                                          timeout=60)
        hdrs = {k: v for k, v in self.headers.items()
                if k.lower() not in ("connection", "content-length")}
        conn.request(self.command, self.path, body=body, headers=hdrs)
        r = conn.getresponse()
        data = r.read()
        m = mode()
        if m == "dropack" and self.command == "POST" and body and \
                urllib.parse.urlsplit(self.path).path.endswith("/items"):
            h = hashlib.sha256(body).digest()
            if h not in SEEN:
                SEEN.add(h)
                conn.close()
                self.close_connection = True
                return
        ctype = r.getheader("Content-Type", "")
        path = urllib.parse.urlsplit(self.path).path
        if r.status == 200 and m != "none":
            if path.endswith("/log") and "json" in ctype:
                data = json.dumps(tamper_log(m, json.loads(data))).encode()
            elif "/chunks/" in path and m == "chunk" and data:
                b = bytearray(data)
                b[len(b) // 2] ^= 0x01
                data = bytes(b)
            elif path.endswith("/manifest") and m == "manifest":
                doc = json.loads(data)
                man = doc["manifests"][0]
                body = bytearray(b64d(man["body"]))
                i = body.find(b'"created":') + 11
                body[i] = ord("1") if body[i] != ord("1") else ord("2")
                man["body"] = b64e(bytes(body))
                data = json.dumps(doc).encode()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "connection",
                                 "transfer-encoding"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        conn.close()

    do_GET = do_POST = do_PUT = do_DELETE = forward


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
with open(PORTFILE + ".tmp", "w") as f:
    f.write("127.0.0.1:%d\n" % srv.server_address[1])
os.rename(PORTFILE + ".tmp", PORTFILE)
srv.serve_forever()
