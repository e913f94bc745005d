#!/bin/sh
# fanout.sh: a busy relay does not starve its readers. The relay writes
# staged stream output at a low event priority, after the turn's replies;
# libevent runs a lower priority only in a turn with nothing of a higher
# one, so clients that keep the loop busy (here 32 connections with
# pipelined health requests, for as long as the test runs) would hold
# the stream back for good without the flush's time bound. An item posted
# meanwhile must reach an SSE reader while they go on. The relay's end of
# the stream (read with pidfd_getfd(2)) has TCP_NODELAY, and a kernel send
# buffer of at least 256 KB: with less, loopback's 64 KB segments and the
# reader's delayed acknowledgements stall a stream 40 ms at a time, and a
# fast publisher's items pile up past --stream-buffer.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

start_relay --plain-http --rate-limit 1000000 \
    --max-connections-per-address 1000
new_session
like "$r" '^201 ' "a session"
join bob:sender carol:observer
like "$r" '^201 ' "two participants"

auth=$("$CLI" auth "$S" carol GET "/v1/sessions/$sid/stream" - "$ADDR")
"$CLI" item "$S" bob text
cp "$S/item.json" "$T/item.json"
"$CLI" auth "$S" bob POST "/v1/sessions/$sid/items" "$T/item.json" "$ADDR" \
    >"$T/item.auth"
python3 - "$ADDR" "/v1/sessions/$sid" "$auth" "$T" "$RELAY_PID" <<'PY' >"$T/out"
import ctypes, os, socket, sys, threading, time
addr, path, auth, t, pid = sys.argv[1:6]
host, port = addr.rsplit(":", 1)
sub = socket.create_connection((host, int(port)))
sub.sendall(("GET %s/stream HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n\r\n"
             % (path, addr, auth)).encode())
sub.settimeout(60)
head = b""
while b"\r\n\r\n" not in head:
    head += sub.recv(4096)
print("stream", head.split(b"\r\n")[0].decode())
# The relay's end of this stream, through pidfd_getfd(2).
libc = ctypes.CDLL(None, use_errno=True)
mine = sub.getsockname()
opts = "none"
try:
    pidfd = os.pidfd_open(int(pid))
    for name in os.listdir("/proc/%s/fd" % pid):
        if not os.readlink("/proc/%s/fd/%s" % (pid, name)).startswith(
                "socket:"):
            continue
        fd = libc.syscall(438, pidfd, int(name), 0)
        if fd < 0:
            opts = "getfd_failed errno=%d" % ctypes.get_errno()
            break
        s = socket.socket(fileno=fd)
        try:
            peer = s.getpeername()
        except OSError:
            peer = None
        if peer == mine:
            opts = "nodelay=%d sndbuf=%d" % (
                s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
                s.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF))
        s.close()
        if peer == mine:
            break
except OSError as e:
    opts = "getfd_failed %s" % e
print("opts", opts)
stop = [False]
def flood():
    cs = []
    req = ("GET /v1/health HTTP/1.1\r\nHost: %s\r\n\r\n" % addr).encode()
    for _ in range(16):
        c = socket.create_connection((host, int(port)))
        c.setblocking(False)
        cs.append(c)
    while not stop[0]:
        for c in cs:
            try:
                c.send(req * 64)
            except BlockingIOError:
                pass
            try:
                while c.recv(1 << 20):
                    pass
            except BlockingIOError:
                pass
for _ in range(2):
    threading.Thread(target=flood, daemon=True).start()
time.sleep(1)
body = open(t + "/item.json", "rb").read()
pauth = open(t + "/item.auth").read().strip()
p = socket.create_connection((host, int(port)))
t0 = time.monotonic()
p.sendall(("POST %s/items HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\n"
           "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"
           % (path, addr, pauth, len(body))).encode() + body)
print("post", p.recv(4096).split(b"\r\n")[0].decode())
got = b""
try:
    while b"event: item" not in got:
        d = sub.recv(65536)
        if not d:
            break
        got += d
    if b"event: item" in got:
        print("delay %.3f" % (time.monotonic() - t0))
    else:
        print("closed before the item")
except socket.timeout:
    print("no item in 60 s")
stop[0] = True
PY
sed 's/^/# /' "$T/out"
like "$(sed -n 's/^stream //p' "$T/out")" ' 200 ' "the reader's stream is open"
opts=$(sed -n 's/^opts //p' "$T/out")
case $opts in
getfd*|none)
	skip "the stream socket's options" "cannot read them: $opts" ;;
*)
	like "$opts" 'nodelay=1 ' "the relay's end of the stream has TCP_NODELAY"
	b=$(echo "$opts" | sed 's/.*sndbuf=//')
	ok $([ "${b:-0}" -ge 262144 ]; echo $?) \
	    "and a kernel send buffer of at least 256 KB ($b)" ;;
esac
like "$(sed -n 's/^post //p' "$T/out")" ' 201 ' "an item posted while the loop is busy"
like "$(cat "$T/out")" '^delay [0-9.]+$' \
    "reaches the reader while the other clients keep the loop busy"
curl -fsS "$URL/v1/health" >/dev/null
ok $? "the relay still serves"
done_testing
