#!/usr/bin/env python3
"""fulldisk.py: the helper of fulldisk.sh (uses damage.py's Relay).

fulldisk.py fill ADDR CLI DIR SID
    Items of one 512 KiB chunk from bob of the relay-cli session in DIR,
    each posted, then its chunk uploaded, until the relay answers an item
    post 507 (then twice more, as a client posting it again); then carol's
    text items until one is refused. Every answer must be 201 or 507, and
    the chunk of an item answered 201 must be stored (201): an item is
    never left half-stored. A new session must get 507 too. Appends the ids of the items stored to DIR/acked. Prints
    "stored N, refused M".
fulldisk.py more ADDR CLI DIR SID
    The refused item posted again until stored (the disk has room again),
    its chunk, and one new item with its chunk.
fulldisk.py verify ADDR CLI DIR SID
    Every item in DIR/acked reads complete, its chunk whole. Prints
    "N items complete".
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from damage import Relay, cli  # noqa: E402


def item(rl, d, sid, kind="file"):
    """A new item of bob: (its id, post status, chunk status or None)."""
    if kind == "file":
        payload = os.path.join(d, "payload")
        with open(payload, "wb") as f:
            f.write(os.urandom(524288))
        cli(rl.cli, "item", d, "bob", "file", payload)
    else:
        cli(rl.cli, "item", d, "bob", "text")
    with open(os.path.join(d, "item.id")) as f:
        iid = f.read().strip()
    with open(os.path.join(d, "item.json"), "rb") as f:
        body = f.read()
    st, _ = rl.req("POST", "/v1/sessions/%s/items" % sid, body)
    return iid, st, body


def chunk(rl, d, sid, iid):
    p = "/v1/sessions/%s/items/%s/chunks/0" % (sid, iid)
    with open(os.path.join(d, "chunk.0"), "rb") as f:
        st, body = rl.req("PUT", p, f.read(), "bob", d)
    return st, body


def repost(rl, sid, body, tries=200):
    """Post the same item again until stored (409 replayed: it was)."""
    for _ in range(tries):
        st, _ = rl.req("POST", "/v1/sessions/%s/items" % sid, body)
        if st in (201, 409):
            return 201
        time.sleep(0.15)
    return st


def fill(addr, clipath, d, sid):
    rl = Relay(addr, clipath)
    stored, refused, bad = 0, 0, []
    acked = open(os.path.join(d, "acked"), "a")
    for _ in range(600):
        iid, st, body = item(rl, d, sid)
        if st == 201:
            cst, cbody = chunk(rl, d, sid, iid)
            if cst != 201:
                bad.append("chunk of a stored item: %d %s" % (cst, cbody))
                break
            acked.write(iid + "\n")
            stored += 1
            continue
        if st != 507:
            bad.append("item post: %d" % st)
            break
        # Refused: the client keeps it and posts it again (the next of
        # its chain must wait for it); full is full: 507 again.
        refused += 1
        for _ in range(2):
            st, _ = rl.req("POST", "/v1/sessions/%s/items" % sid, body)
            if st != 507:
                bad.append("the refused item again: %d" % st)
                break
            refused += 1
        with open(os.path.join(d, "pending"), "w") as f:
            f.write(iid)
        with open(os.path.join(d, "pending.json"), "wb") as f:
            f.write(body)
        break
    acked.close()
    # What room is left takes small items until it too is gone: carol's
    # text items, 201 or 507 only.
    texts = 0
    for _ in range(3000 if not bad else 0):
        cli(clipath, "item", d, "carol", "text")
        with open(os.path.join(d, "item.json"), "rb") as f:
            body = f.read()
        st, _ = rl.req("POST", "/v1/sessions/%s/items" % sid, body)
        if st == 507:
            break
        if st != 201:
            bad.append("a text item: %d" % st)
            break
        texts += 1
    # Full: a new session is refused as well.
    if not bad:
        n = os.path.join(d, "new")
        os.makedirs(n, exist_ok=True)
        cli(clipath, "create", n, "3600")
        with open(os.path.join(n, "manifest.json"), "rb") as f:
            st, _ = rl.req("POST", "/v1/sessions", f.read())
        if st != 507:
            bad.append("a new session while full: %d" % st)
    print("stored %d, refused %d, then %d text items" %
          (stored, refused, texts))
    for b in bad:
        print("bad: " + b)
    sys.exit(1 if bad or stored == 0 or refused == 0 else 0)


def more(addr, clipath, d, sid):
    rl = Relay(addr, clipath)
    # The item refused last comes first (its author's chain): posted
    # again until there is room, then its chunk; then a new one.
    with open(os.path.join(d, "pending")) as f:
        iid = f.read().strip()
    with open(os.path.join(d, "pending.json"), "rb") as f:
        st = repost(rl, sid, f.read())
    cst = chunk(rl, d, sid, iid)[0] if st == 201 else 0
    if st != 201 or cst != 201:
        print("the refused item, posted again: %d, its chunk: %d" % (st, cst))
        sys.exit(1)
    with open(os.path.join(d, "acked"), "a") as f:
        f.write(iid + "\n")
    iid, st, body = item(rl, d, sid)
    cst = chunk(rl, d, sid, iid)[0] if st == 201 else 0
    print("the refused item stored; a new item: %d, its chunk: %d" %
          (st, cst))
    if st == 201 and cst == 201:
        with open(os.path.join(d, "acked"), "a") as f:
            f.write(iid + "\n")
    sys.exit(0 if st == 201 and cst == 201 else 1)


def verify(addr, clipath, d, sid):
    rl = Relay(addr, clipath)
    with open(os.path.join(d, "acked")) as f:
        ids = [l.strip() for l in f if l.strip()]
    bad = []
    for iid in ids:
        st, body = rl.req("GET", "/v1/sessions/%s/items/%s" % (sid, iid),
                          None, "bob", d)
        if st != 200 or not json.loads(body).get("complete"):
            bad.append("%s: %d %s" % (iid, st, body[:60]))
            continue
        st, body = rl.req("GET", "/v1/sessions/%s/items/%s/chunks/0"
                          % (sid, iid), None, "bob", d)
        if st != 200 or len(body) != 524288 + 16:
            bad.append("%s chunk: %d %d" % (iid, st, len(body)))
    print("%d items complete, %d not" % (len(ids) - len(bad), len(bad)))
    for b in bad[:5]:
        print("bad: " + b)
    sys.exit(1 if bad or not ids else 0)


{"fill": fill, "more": more, "verify": verify}[sys.argv[1]](*sys.argv[2:6])
