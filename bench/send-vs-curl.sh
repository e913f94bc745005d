#!/bin/sh
# send-vs-curl.sh: client latency against a loopback airlox-relayd.
#  1. `airlox send text` from process start to exit after the relay's 201
#     (a joined sender, cache warm), median of RUNS runs, against curl
#     POSTing a pre-signed item of the same kind (relay-cli: sealed text,
#     signed item, signed Authorization header) to the same relay; runs
#     alternate so both see the same machine state.
#  2. `airlox listen --once` wake latency: a listener is started and
#     parked on the relay (health "parked"), a second sender posts an item
#     addressed to it; latency = the moment the listener prints the item
#     (--json line) - the moment the relay's 201 to the sender is on the
#     loopback wire (a packet socket on lo: run as root). p50/p99 of WAKES.
# Prints figures and the ratio send/curl; no pass/fail.
#
#	bench/send-vs-curl.sh [BUILDDIR]		(RUNS=50 WAKES=50)
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-/work/build-bench}
RUNS=${RUNS:-50}
WAKES=${WAKES:-50}
RELAYD=$B/relayd/airlox-relayd
AIRLOX=$B/client/airlox
CLI=$B/tests/relayd/relay-cli
for f in "$RELAYD" "$AIRLOX" "$CLI"; do
	[ -x "$f" ] || { echo "send-vs-curl: missing $f" >&2; exit 2; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-send.XXXXXX") || exit 2
RPID=
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
unset AIRLOX_INVITE AIRLOX_RELAY AIRLOX_NAME AIRLOX_CA_FILE
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

"$RELAYD" --listen 127.0.0.1:0 --port-file "$T/port" --plain-http \
    --data "$T/data" --rate-limit 100000 --log-level warn \
    >"$T/relay.log" 2>&1 &
RPID=$!
n=0
while [ ! -s "$T/port" ] && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
ADDR=$(head -n 1 "$T/port")
URL=http://$ADDR
export AIRLOX_RELAY=$URL

echo "# machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' \
    /proc/cpuinfo | head -n 1), $(uname -r)"
echo "# $($AIRLOX --version 2>&1 | head -n 1); curl $(curl --version |
    head -n 1 | cut -d' ' -f2)"

# airlox session: alice owns, bob and carol send.
XDG_CACHE_HOME=$T/c-alice AIRLOX_NAME=alice "$AIRLOX" session create --json \
    >"$T/create.json" || exit 2
SENDER=$(python3 -c 'import json, sys
print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
    ["invites"]["sender"])' "$T/create.json") || exit 2
for who in bob carol; do
	XDG_CACHE_HOME=$T/c-$who AIRLOX_NAME=$who AIRLOX_INVITE=$SENDER \
	    "$AIRLOX" session show --kind agent >/dev/null || exit 2
done

# relay-cli session on the same relay: RUNS pre-signed items for curl.
S=$T/s
mkdir -p "$S" "$T/req"
sid=$("$CLI" create "$S" 3600) || exit 2
curl -fsS -o /dev/null --data-binary @"$S/manifest.json" "$URL/v1/sessions"
"$CLI" cert "$S" bob sender
a=$("$CLI" auth "$S" bob POST "/v1/sessions/$sid/participants" \
    "$S/bob.cert" "$ADDR")
curl -fsS -o /dev/null -H "Authorization: $a" --data-binary @"$S/bob.cert" \
    "$URL/v1/sessions/$sid/participants" || exit 2
k=0
while [ $k -le "$RUNS" ]; do
	"$CLI" item "$S" bob text || exit 2
	cp "$S/item.json" "$T/req/body.$k"
	"$CLI" auth "$S" bob POST "/v1/sessions/$sid/items" "$T/req/body.$k" \
	    "$ADDR" >"$T/req/auth.$k"
	k=$((k + 1))
done

python3 - "$AIRLOX" "$T" "$URL" "$sid" "$SENDER" "$RUNS" "$WAKES" <<'PY'
import json, os, statistics, subprocess, sys, time, urllib.request
airlox, T, url, sid, sender, runs, wakes = sys.argv[1:]
runs, wakes = int(runs), int(wakes)

def env(who):
    e = dict(os.environ)
    e.update(XDG_CACHE_HOME=T + "/c-" + who, AIRLOX_NAME=who,
             AIRLOX_INVITE=sender)
    return e

def timed(argv, e=None):
    t0 = time.monotonic()
    p = subprocess.run(argv, env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return (time.monotonic() - t0) * 1000.0, p

def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q / 100.0 * (len(v) - 1))))]

def parked():
    with urllib.request.urlopen(url + "/v1/health", timeout=2) as r:
        return json.loads(r.read())["parked"]

# warm-up, not timed
timed([airlox, "send", "text", "warm-up"], env("bob"))
with open(T + "/req/auth.%d" % runs) as f:
    a = f.read().strip()
timed(["curl", "-sS", "-o", "/dev/null", "-H", "Authorization: " + a,
       "--data-binary", "@%s/req/body.%d" % (T, runs),
       url + "/v1/sessions/%s/items" % sid])

send, curl, sizes = [], [], []
for k in range(runs):
    ms, p = timed([airlox, "send", "text", "bench message %04d" % k],
                  env("bob"))
    if p.returncode != 0:
        sys.exit("airlox send failed: %r" % p.stderr[-300:])
    send.append(ms)
    with open(T + "/req/auth.%d" % k) as f:
        a = f.read().strip()
    ms, p = timed(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}",
                   "-H", "Authorization: " + a, "-H",
                   "Content-Type: application/json", "--data-binary",
                   "@%s/req/body.%d" % (T, k),
                   url + "/v1/sessions/%s/items" % sid])
    if p.stdout != b"201":
        sys.exit("curl post got %r" % p.stdout)
    curl.append(ms)
    sizes.append(os.path.getsize("%s/req/body.%d" % (T, k)))
ms_s, ms_c = statistics.median(send), statistics.median(curl)
print("send: runs=%d median_ms=%.2f p90_ms=%.2f" % (runs, ms_s,
      pct(send, 90)))
print("curl: runs=%d median_ms=%.2f p90_ms=%.2f (item body %d B)"
      % (runs, ms_c, pct(curl, 90), statistics.median(sizes)))
print("send/curl median ratio: %.2f" % (ms_s / ms_c))

# listen --once wake latency: carol posts to bob. The relay's 201 to the
# sender is stamped by a packet socket on lo (the moment it is on the
# wire, root only); the listener runs with --json and a thread stamps its
# first line as it arrives. Latency = listener's line - relay's 201.
import socket, struct, threading

relay_port = int(url.rsplit(":", 1)[1])
stamps = []
try:
    sniff = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.ntohs(0x0003))
    sniff.bind(("lo", 0))
except OSError as e:
    sys.exit("listen wake: needs a packet socket on lo (root): %s" % e)

def sniffer():
    while True:
        pkt = sniff.recv(65536)
        t = time.monotonic()
        if len(pkt) < 14 + 20 or pkt[12:14] != b"\x08\x00":
            continue
        ip = pkt[14:]
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6:
            continue
        tcp = ip[ihl:]
        if struct.unpack("!H", tcp[0:2])[0] != relay_port:
            continue
        payload = tcp[(tcp[12] >> 4) * 4:]
        if payload.startswith(b"HTTP/1.1 201 "):
            stamps.append(t)

threading.Thread(target=sniffer, daemon=True).start()

def first_line(proc, out):
    line = proc.stdout.readline()
    out.append((time.monotonic(), line))

wake, send_ms = [], []
base = parked()
for k in range(wakes):
    lp = subprocess.Popen([airlox, "--json", "listen", "--once", "--timeout",
                           "60"], env=env("bob"), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while parked() <= base:
        if time.monotonic() > deadline:
            sys.exit("listener never parked: %r" % lp.stderr.read())
        time.sleep(0.005)
    time.sleep(0.02)
    del stamps[:]
    lo, so = [], []
    lt = threading.Thread(target=first_line, args=(lp, lo))
    lt.start()
    t0 = time.monotonic()
    sp = subprocess.Popen([airlox, "--json", "send", "text", "--to", "bob",
                           "wake %d" % k], env=env("carol"),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    st = threading.Thread(target=first_line, args=(sp, so))
    st.start()
    st.join()
    sp.wait()
    t1 = time.monotonic()
    lt.join()
    lp.wait()
    if sp.returncode != 0 or not so or not so[0][1]:
        sys.exit("send failed: %r" % sp.stderr.read()[-300:])
    if lp.returncode != 0 or b"wake %d" % k not in lo[0][1]:
        sys.exit("listen --once: status %d, %r" % (lp.returncode,
                                                   lo[0][1][:200]))
    if not stamps:
        sys.exit("listen wake: the relay's 201 was not seen on lo")
    wake.append((lo[0][0] - stamps[0]) * 1000.0)
    send_ms.append((t1 - t0) * 1000.0)
print("listen --once wake (listener's line - relay's 201 to the sender): "
      "samples=%d p50_ms=%.2f p99_ms=%.2f min_ms=%.2f"
      % (wakes, pct(wake, 50), pct(wake, 99), min(wake)))
print("(send --to bob by a second sender, process start to exit: "
      "median_ms=%.2f)" % statistics.median(send_ms))
PY
