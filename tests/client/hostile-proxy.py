#!/usr/bin/env python3
"""hostile-proxy.py: a relay that lies, for tests/client/hostile.sh.

Forwards every request to the real relay and, depending on the mode in the
file named by argv[2] (read for every request), tampers with what it
serves: "flip" changes a byte of an item's signed body, "replay" serves an
item event again, "reorder" swaps two items of one author, "drop" leaves
out an author's first item, "chunk" flips a byte of a chunk, "manifest"
changes the first manifest, "forge" serves an item re-signed by a key
that is not a member, "holdput" holds every chunk upload until the mode
changes (an honest but slow relay, as slow as the test says), "dropack"
forwards each item POST but closes
the connection instead of answering the first time it sees that body (the
relay stored it; the client never heard). "rollback" (or "rollback:N")
serves the session as it was at manifest version 1 (or N): the manifest
chain cut there, the log cut before the first later manifest event, items
posted meanwhile kept by the proxy (201, never forwarded; the file
MODEFILE.stash lists them, one per line) and served in the cut log to
everyone (even to a reader the real relay refuses: the proxy answers from
the last whole log it forwarded), claims of those items accepted, and an
empty event stream; "rollback-log" cuts only the log (the manifest chain
is served whole). "none" passes everything through.

Relays that fail the client rather than lie to it: "hang" holds every
request without a word until the mode changes; "drip" answers every request
200 and then one byte of its body every 2 seconds, never finishing; "flood"
answers 200 with a body that never ends. For the event stream only (other
requests pass): "sse-flood" sends one line that never ends, "sse-garbage"
an event whose data is not JSON, "sse-silent" the headers and then
nothing, not even a heartbeat, "sse-html" a web page instead of events.
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
STASH = []		# item objects posted to the rolled-back session
LOGS = {}		# path -> the last whole log (after=0) forwarded


def manifest_ver(ev):
    return json.loads(b64d(ev["data"]["body"]))["ver"]


def rollback_to(m):
    """The manifest version a rollback mode keeps: "rollback:N" or 1."""
    return int(m.split(":", 1)[1]) if ":" in m else 1


def rollback_log(doc, keep, stash):
    """The log as it was at manifest version keep (and the stash)."""
    evs = doc.get("events", [])
    cut = None
    for i, e in enumerate(evs):
        if e.get("type") == "manifest" and manifest_ver(e) > keep:
            cut = i
            break
    if cut is None:
        return doc
    nxt = evs[cut]["cursor"]
    evs = evs[:cut]
    for obj in (STASH if stash else []):
        evs.append({"cursor": nxt, "type": "item", "data": obj})
        nxt += 1
    doc["events"] = evs
    doc["next"] = evs[-1]["cursor"] if evs else 0
    return doc


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def rolled_back(self, body):
        """rollback: the requests the proxy answers itself. True if so."""
        path = urllib.parse.urlsplit(self.path).path
        if self.command == "POST" and path.endswith("/items") and body:
            STASH.append(json.loads(body))
            with open(MODEFILE + ".stash", "a") as f:
                f.write(body.decode() + "\n")
            self.answer(201, "application/json",
                        json.dumps({"cursor": 1000 + len(STASH)}).encode())
            return True
        if self.command == "POST" and path.endswith("/claim"):
            self.answer(200, "application/json", b"{}")
            return True
        if self.command == "GET" and path.endswith("/stream"):
            self.close_connection = True
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": hb\n\n")
            self.wfile.flush()
            time.sleep(3)
            return True
        return False

    def fail(self, m):
        """The failing relays; True when one answered (or would not)."""
        stream = urllib.parse.urlsplit(self.path).path.endswith("/stream")
        if m == "hang":
            while mode() == "hang":
                time.sleep(0.1)
            self.close_connection = True
            return True
        if m == "drip":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.flush()
            while mode() == "drip":
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(2)
            self.close_connection = True
            return True
        if m == "flood" or (m == "sse-flood" and stream):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream"
                             if stream else "application/json")
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = (b"data: " if stream else b"") + b"x" * 65536
            while mode() in ("flood", "sse-flood"):
                self.wfile.write(chunk)
                chunk = b"x" * 65536
            self.close_connection = True
            return True
        if stream and m in ("sse-garbage", "sse-silent", "sse-html"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html" if m == "sse-html"
                             else "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            if m == "sse-html":
                self.wfile.write(b"<html><body>Please log in to the "
                                 b"network</body></html>\n")
            if m == "sse-garbage":
                self.wfile.write(b"id: 999\nevent: item\ndata: {this "
                                 b"is not json\n\n")
            self.wfile.flush()
            while m != "sse-html" and mode() == m:
                if m == "sse-garbage":
                    self.wfile.write(b": hb\n")
                    self.wfile.flush()
                time.sleep(0.5)
            self.close_connection = True
            return True
        return False

    def forward(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        try:
            if self.fail(mode()):
                return
        except OSError:		# the client gave up: as it should
            self.close_connection = True
            return
        if mode().split(":")[0] == "rollback" and self.rolled_back(body):
            return
        while self.command == "PUT" and "/chunks/" in self.path and \
                mode() == "holdput":
            time.sleep(0.05)
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
        url = urllib.parse.urlsplit(self.path)
        path = url.path
        query = urllib.parse.parse_qs(url.query)
        status = r.status
        if path.endswith("/log") and status == 200 and "json" in ctype and \
                query.get("after") == ["0"]:
            LOGS[path] = json.loads(data)
        if path.endswith("/log") and status != 200 and \
                m.startswith("rollback") and path in LOGS:
            # The hostile relay serves a reader the real one refuses.
            after = int(query.get("after", ["0"])[0])
            doc = json.loads(json.dumps(LOGS[path]))
            doc["events"] = [e for e in doc["events"] if e["cursor"] > after]
            data, status, ctype = json.dumps(doc).encode(), 200, \
                "application/json"
        if status == 200 and m != "none":
            if path.endswith("/log") and "json" in ctype and \
                    m.startswith("rollback"):
                data = json.dumps(rollback_log(
                    json.loads(data), rollback_to(m),
                    m.split(":")[0] == "rollback")).encode()
            elif path.endswith("/log") and "json" in ctype:
                data = json.dumps(tamper_log(m, json.loads(data))).encode()
            elif path.endswith("/manifest") and \
                    m.split(":")[0] == "rollback":
                doc = json.loads(data)
                doc["manifests"] = doc["manifests"][:rollback_to(m)]
                data = json.dumps(doc).encode()
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
        self.send_response(status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "connection",
                                 "transfer-encoding", "content-type"):
                self.send_header(k, v)
        if ctype:
            self.send_header("Content-Type", ctype)
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
