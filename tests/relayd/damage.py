#!/usr/bin/env python3
"""damage.py: the helper of damage.sh.

damage.py build ADDR CLI DIR N ITEMS
    N sessions in DIR/s1..sN (relay-cli), each with a sender bob who posts
    ITEMS text items and two file items of one 192 KiB chunk, all stored.
    DIR/sessions lists "sid dir id:nchunks ...".
damage.py harm CASE DATADIR [SEED]
    Damage DATADIR/data.mdb: truncate (to half of what LMDB uses), meta0,
    meta1, metas (zeroed meta pages), zero64 (64 pages zeroed in the middle
    of the pages in use), flip200 (200 bits flipped among the pages in
    use, seeded; flipN for N bits; flipbranch: five bits in LMDB's
    branch pages, for campaigns, as they may land where no node is), sidkey (the index key of one text item, its session id's
    first bit flipped: the record sits where it was, under another
    session's key), dbname (the name "sessions" in LMDB's catalogue of
    databases changed to "qessions"), zerodata (whole runs of record
    data, 64 pages or more, zeroed from the middle), empty (no byte left).
damage.py read ADDR CLI DIR [--missing-ok]
    Read everything of every session (manifest, participants, the whole
    log, every item and chunk) and create a new session. Prints
    "STATUS:COUNT ..." and "sessions whole: N of M"; exits 1 when an answer
    is neither a success nor 500 storage_error (nor, with --missing-ok,
    404: a session left out of a salvaged copy): a client blamed, the
    relay gone, a connection dropped; 0 otherwise.
"""
import base64
import http.client
import json
import os
import random
import struct
import subprocess
import sys

PSIZE = 4096


def cli(*args):
    return subprocess.run(list(args), check=True, capture_output=True,
                          text=True).stdout.strip()


class Relay:
    def __init__(self, addr, clipath):
        self.addr, self.cli = addr, clipath
        host, port = addr.rsplit(":", 1)
        self.host, self.port = host, int(port)

    def req(self, method, path, body=None, auth=None, sdir=None):
        headers = {"Host": self.addr}
        if auth is not None:
            bfile = "-"
            if body is not None:
                bfile = os.path.join(sdir, "body.tmp")
                with open(bfile, "wb") as f:
                    f.write(body)
            headers["Authorization"] = cli(self.cli, "auth", sdir, auth,
                                           method, path, bfile, self.addr)
        try:
            c = http.client.HTTPConnection(self.host, self.port, timeout=60)
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            c.close()
            return r.status, data
        except (OSError, http.client.HTTPException) as e:
            return 0, str(e).encode()


def build(addr, clipath, d, n, nitems):
    rl = Relay(addr, clipath)
    lines = []
    for i in range(1, n + 1):
        s = os.path.join(d, "s%d" % i)
        os.makedirs(s, exist_ok=True)
        sid = cli(clipath, "create", s, "3600")
        with open(os.path.join(s, "manifest.json"), "rb") as f:
            st, _ = rl.req("POST", "/v1/sessions", f.read())
        assert st == 201, ("create", st)
        cli(clipath, "cert", s, "bob", "sender")
        with open(os.path.join(s, "bob.cert"), "rb") as f:
            cert = f.read()
        st, _ = rl.req("POST", "/v1/sessions/%s/participants" % sid, cert,
                       "bob", s)
        assert st == 201, ("join", st)
        items = []
        for j in range(nitems + 2):
            env = dict(os.environ)
            if j < nitems:
                cli(clipath, "item", s, "bob", "text")
            else:
                payload = os.path.join(s, "payload")
                with open(payload, "wb") as f:
                    f.write(random.Random(i * 1000 + j).randbytes(196608))
                cli(clipath, "item", s, "bob", "file", payload)
            with open(os.path.join(s, "item.id")) as f:
                iid = f.read().strip()
            with open(os.path.join(s, "item.json"), "rb") as f:
                st, _ = rl.req("POST", "/v1/sessions/%s/items" % sid, f.read())
            assert st == 201, ("item", st)
            nch = 0
            while os.path.exists(os.path.join(s, "chunk.%d" % nch)):
                p = "/v1/sessions/%s/items/%s/chunks/%d" % (sid, iid, nch)
                with open(os.path.join(s, "chunk.%d" % nch), "rb") as f:
                    st, _ = rl.req("PUT", p, f.read(), "bob", s)
                assert st == 201, ("chunk", st)
                os.unlink(os.path.join(s, "chunk.%d" % nch))
                nch += 1
            items.append("%s:%d" % (iid, nch))
        lines.append(" ".join([sid, s] + items))
    with open(os.path.join(d, "sessions"), "w") as f:
        f.write("\n".join(lines) + "\n")


def meta_last_pg(data):
    """The last page in use, from the valid meta page of higher txnid."""
    best = None
    for off in (0, PSIZE):
        pg = data[off:off + PSIZE]
        magic, = struct.unpack_from("<I", pg, 16)
        if magic != 0xBEEFC0DE:
            continue
        last, txn = struct.unpack_from("<QQ", pg, 136)
        if best is None or txn > best[1]:
            best = (last, txn)
    return best[0]


def b64d(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def harm(case, datadir, seed, builddir=None):
    path = os.path.join(datadir, "data.mdb")
    with open(path, "rb") as f:
        data = bytearray(f.read())
    used = (meta_last_pg(data) + 1) * PSIZE
    rnd = random.Random(seed)
    if case == "truncate":
        data = data[:used // 2]
    elif case == "meta0":
        data[0:PSIZE] = bytes(PSIZE)
    elif case == "meta1":
        data[PSIZE:2 * PSIZE] = bytes(PSIZE)
    elif case == "metas":
        data[0:2 * PSIZE] = bytes(2 * PSIZE)
    elif case == "zero64":
        pages = used // PSIZE
        first = max(2, pages // 2 - 32)
        data[first * PSIZE:(first + 64) * PSIZE] = bytes(64 * PSIZE)
    elif case == "zerodata":
        # 64 pages of record data (whole runs of LMDB overflow pages, the
        # values of chunks) from the middle on: records, not the trees.
        pages, runs, p = used // PSIZE, [], 2
        while p < pages:
            flags, = struct.unpack_from("<H", data, p * PSIZE + 10)
            if flags & 0x04:
                n, = struct.unpack_from("<I", data, p * PSIZE + 12)
                runs.append((p, n))
                p += max(n, 1)
            else:
                p += 1
        zeroed = 0
        for first, n in [r for r in runs if r[0] >= pages // 2] + runs:
            if zeroed >= 64:
                break
            if any(data[first * PSIZE:first * PSIZE + 16]):
                data[first * PSIZE:(first + n) * PSIZE] = bytes(n * PSIZE)
                zeroed += n
    elif case == "flipbranch":
        # Five bits in LMDB's branch pages (flag 1), where no tag looks.
        pages = [p for p in range(2, used // PSIZE)
                 if struct.unpack_from("<H", data, p * PSIZE + 10)[0] & 0x01]
        assert pages, "a branch page"
        for _ in range(5):
            p = rnd.choice(pages)
            o = p * PSIZE + rnd.randrange(16, PSIZE)
            data[o] ^= 1 << rnd.randrange(8)
    elif case.startswith("flip") and case[4:].isdigit():
        for _ in range(int(case[4:])):
            o = rnd.randrange(2 * PSIZE, used)
            data[o] ^= 1 << rnd.randrange(8)
    elif case == "sidkey":
        with open(os.path.join(builddir, "sessions")) as f:
            first = f.readline().split()
        sid, iid = b64d(first[0]), b64d(first[2].split(":")[0])
        key, at, n = sid + iid, 0, 0
        # Every copy: LMDB's older versions of the page may hold it too.
        while (at := data.find(key, at)) > 0:
            data[at] ^= 0x80
            at, n = at + len(key), n + 1
        assert n > 0, "the item's index key"
    elif case == "dbname":
        # A catalogue node: flags F_SUBDATA (2), a key of 8 bytes. Every
        # copy (older versions of the page may hold it too).
        at, n = 0, 0
        node = b"\x02\x00\x08\x00sessions"
        while (at := data.find(node, at)) > 0:
            data[at + 4] ^= 0x02
            at, n = at + len(node), n + 1
        assert n > 0, "the catalogue's node of sessions"
    elif case == "empty":
        data = bytearray()
    else:
        sys.exit("unknown case " + case)
    with open(path, "wb") as f:
        f.write(data)
    print("%s: %d bytes (%d in use before)" % (case, len(data), used))


def read(addr, clipath, d, missing_ok):
    rl = Relay(addr, clipath)
    counts, bad, whole, total = {}, [], 0, 0

    def note(what, st, body):
        ok = st in (200, 204) or (st == 500 and b"storage_error" in body) \
            or (missing_ok and st == 404)
        key = str(st) if st != 500 else "500:storage_error"
        if st == 500 and b"storage_error" not in body:
            key = "500:other"
        counts[key] = counts.get(key, 0) + 1
        if not ok:
            bad.append("%s -> %d %s" % (what, st, body[:80]))
        return st in (200, 204)

    with open(os.path.join(d, "sessions")) as f:
        sessions = [l.split() for l in f if l.strip()]
    for line in sessions:
        sid, s, items = line[0], line[1], line[2:]
        total += 1
        good = note("manifest", *rl.req("GET", "/v1/sessions/%s/manifest"
                                        % sid))
        good &= note("participants", *rl.req(
            "GET", "/v1/sessions/%s/participants" % sid, None, "bob", s))
        p = "/v1/sessions/%s/log?after=0&limit=1000" % sid
        st, body = rl.req("GET", p, None, "bob", s)
        good &= note("log", st, body)
        if st == 200 and len(json.loads(body)["events"]) != len(items) + 4:
            good = False
        for it in items:
            iid, nch = it.split(":")
            st, body = rl.req("GET", "/v1/sessions/%s/items/%s" % (sid, iid),
                              None, "bob", s)
            good &= note("item %s/%s" % (sid, iid), st, body)
            for c in range(int(nch)):
                st, body = rl.req("GET", "/v1/sessions/%s/items/%s/chunks/%d"
                                  % (sid, iid, c), None, "bob", s)
                good &= note("chunk %s/%s/%d" % (sid, iid, c), st, body)
        whole += good
    # A write: a new session (refused with 500 while writes are off).
    n = os.path.join(d, "new")
    os.makedirs(n, exist_ok=True)
    cli(clipath, "create", n, "3600")
    with open(os.path.join(n, "manifest.json"), "rb") as f:
        st, body = rl.req("POST", "/v1/sessions", f.read())
    counts["write:%d" % st] = 1
    if st not in (201, 500) or (st == 500 and b"storage_error" not in body):
        bad.append("write -> %d %s" % (st, body[:80]))
    print(" ".join("%s:%d" % kv for kv in sorted(counts.items())))
    print("sessions whole: %d of %d" % (whole, total))
    for b in bad[:10]:
        print("bad: " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]),
              int(sys.argv[6]))
    elif sys.argv[1] == "harm":
        harm(sys.argv[2], sys.argv[3],
             int(sys.argv[4]) if len(sys.argv) > 4 else 1,
             sys.argv[5] if len(sys.argv) > 5 else None)
    elif sys.argv[1] == "read":
        read(sys.argv[2], sys.argv[3], sys.argv[4],
             len(sys.argv) > 5 and sys.argv[5] == "--missing-ok")
