#!/usr/bin/env python3
"""crash.py RELAYD DATADIR LOG CLI SDIR SID KILLS: the kill -9 loop of
crash.sh. Starts the relay (plain HTTP, port 0, DATADIR), and four
posters, p1..p4 (senders joined in the relay-cli session SDIR, each with
its own copy of it), post text items as fast as the relay takes them; a
poster sends each item again until it is answered 201, or 409 replayed (it
was stored, its answer lost to a kill). Every time the posters have had
40 more items acknowledged, the relay is killed with SIGKILL and started
again, KILLS times. Then: every participant's last sequence number is its
count of acknowledged items, and the log holds exactly as many items: no
acknowledged item was lost, none stored twice. Prints what it found;
exit 0 when all holds."""
import base64
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from damage import Relay, cli  # noqa: E402

relayd, data, log, clipath, sdir, sid, kills = sys.argv[1:8]
kills = int(kills)
portfile = os.path.join(os.path.dirname(log), "crash.port")
state = {"addr": None, "stop": False}
lock = threading.Lock()
acked = {}


def start():
    if os.path.exists(portfile):
        os.unlink(portfile)
    with open(log, "ab") as f:
        p = subprocess.Popen([relayd, "--listen", "127.0.0.1:0",
                              "--port-file", portfile, "--data", data,
                              "--plain-http", "--rate-limit", "100000"],
                             stdout=f, stderr=f)
    for _ in range(600):
        if p.poll() is not None:
            sys.exit("the relay exited: %d" % p.returncode)
        if os.path.exists(portfile) and os.path.getsize(portfile) > 0:
            with open(portfile) as f:
                addr = f.readline().strip()
            st, _ = Relay(addr, clipath).req("GET", "/v1/health")
            if st == 200:
                with lock:
                    state["addr"] = addr
                return p
        time.sleep(0.05)
    sys.exit("the relay did not start")


def poster(name, d):
    n = 0
    while not state["stop"]:
        cli(clipath, "item", d, name, "text")
        with open(os.path.join(d, "item.json"), "rb") as f:
            body = f.read()
        while True:
            with lock:
                addr = state["addr"]
            st, _ = Relay(addr, clipath).req(
                "POST", "/v1/sessions/%s/items" % sid, body)
            if st in (201, 409):
                break
            time.sleep(0.05)	# killed, restarting, or busy: again
        n += 1
        with lock:
            acked[name] = n


def total():
    with lock:
        return sum(acked.values())


names = ["p1", "p2", "p3", "p4"]
proc = start()
threads = []
for name in names:
    d = sdir + "." + name
    shutil.copytree(sdir, d)
    acked[name] = 0
    t = threading.Thread(target=poster, args=(name, d))
    t.start()
    threads.append(t)
for k in range(kills):
    want = total() + 40
    deadline = time.time() + 120
    while total() < want and time.time() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc = start()
state["stop"] = True
for t in threads:
    t.join()

rl = Relay(state["addr"], clipath)
st, body = rl.req("GET", "/v1/sessions/%s/participants" % sid, None, "p1",
                  sdir)
bad = []
if st != 200:
    bad.append("participants: %d" % st)
else:
    seqs = {}
    for p in json.loads(body)["participants"]:
        b64 = p["cert"]["body"]
        cert = json.loads(base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)))
        seqs[cert["name"]] = p["last_seq"]
    for n in names:
        if seqs.get(n) != acked[n]:
            bad.append("%s: %d acknowledged, last seq %s" %
                       (n, acked[n], seqs.get(n)))
items, after = 0, 0
while not bad:
    st, body = rl.req("GET", "/v1/sessions/%s/log?after=%d&limit=1000" %
                      (sid, after), None, "p1", sdir)
    if st != 200:
        bad.append("log: %d" % st)
        break
    ev = json.loads(body)["events"]
    if not ev:
        break
    items += sum(1 for e in ev if e["type"] == "item")
    after = ev[-1]["cursor"]
if not bad and items != total():
    bad.append("%d items in the log, %d acknowledged" % (items, total()))
proc.send_signal(signal.SIGTERM)
rc = proc.wait()
if rc != 0:
    bad.append("SIGTERM: exit status %d" % rc)
print("%d kills, %d items acknowledged (%s), all there: %s" %
      (kills, total(), " ".join("%s:%d" % kv for kv in sorted(acked.items())),
       "no" if bad else "yes"))
for b in bad:
    print("bad: " + b)
sys.exit(1 if bad else 0)
