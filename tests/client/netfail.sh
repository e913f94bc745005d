#!/bin/sh
# netfail.sh: a request that never reached the relay, or got no answer, is
# reported by its cause, never as the relay's refusal: a refused
# connection, one never answered and an unknown host name it; a relay that
# hangs, drips a byte every 2 s or floods its answer (hostile-proxy.py)
# ends the command with a named error and exit 5 within --stall-timeout, in
# bounded memory; a broken event stream (a line that never ends, an event
# that is not JSON, a web page, silence) ends watch with exit 5 for the
# relay's fault, not 1.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
# Clients sign for the proxy's address (127.0.0.1, another port), which
# the proxy passes on as Host: a name of the relay.
start_relay --public-name 127.0.0.1 || skip_all "the relay did not start"
REAL=$URL

# rss OUT CMD...: run CMD, its output in OUT; print its exit status and
# its peak memory in KiB. (Under AddressSanitizer freed memory is kept in
# a quarantine that would count too: a small one here.)
rss() {
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 \
	python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    st = subprocess.call(sys.argv[2:], stdout=out)
print(st, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}

# held_port FILE refused|unanswered: a port of 127.0.0.1 held for the
# test (no other can take it meanwhile), its number in FILE. refused: bound
# but not listening, so connections are refused. unanswered: listening
# with a one-place queue kept full, so the SYNs that come are dropped and
# connect() waits as it would on a host that drops packets.
held_port() {
	python3 -c 'import os, select, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
port = s.getsockname()[1]
fill = []
if sys.argv[2] == "unanswered":
    s.listen(0)
    for i in range(3):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fill.append(c)
    # The first is in the queue (connected) before the port is given out.
    select.select([], [fill[0]], [])
open(sys.argv[1] + ".tmp", "w").write("%d\n" % port)
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    time.sleep(60)' "$1" "$2" &
	EXTRA_PIDS="$EXTRA_PIDS $!"
	wait_for test -s "$1"
}

held_port "$T/dead" refused
DEAD=$(cat "$T/dead")
XDG_CACHE_HOME=$T/c-a "$AIRLOX" --relay "http://127.0.0.1:$DEAD" session create \
    >/dev/null 2>"$T/refused.err"
is $? 5 "session create, connection refused: exit 5"
like "$(cat "$T/refused.err")" "cannot connect to 127\\.0\\.0\\.1:$DEAD: connection refused" \
    "names the address and the cause"
lacks "$(cat "$T/refused.err")" "refused the session" "never says the relay refused the session"

# A runner whose relay refuses the connection says so, not unknown_error.
if [ -x "$RUNNERD" ]; then
	mkdir -p "$T/rs" "$T/rw"
	"$RUNNERD" --name box --sandbox process --allow-weaker-sandbox \
	    --invite "http://127.0.0.1:$DEAD/s/AAAAAAAAAAAAAAAAAAAAAA#1.runner.4efNxI4VrETMQcwQIKwdcxwJJGh5n9pJN0z0rYMAZIg" \
	    --state-dir "$T/rs" --work-root "$T/rw" >/dev/null 2>"$T/runner.err"
	ok $([ $? -ne 0 ] && echo 0 || echo 1) "a runner whose relay is not there: exits non-zero"
	like "$(cat "$T/runner.err")" "cannot connect to 127\\.0\\.0\\.1:$DEAD: connection refused" \
	    "naming the address and the cause"
	lacks "$(cat "$T/runner.err")" "unknown_error" "not unknown_error"
else
	skip "a runner whose relay is not there" "airlox-runnerd is not built"
fi

XDG_CACHE_HOME=$T/c-a "$AIRLOX" --json --relay https://relay.invalid session create \
    >"$T/dns.json" 2>"$T/dns.err"
is $? 5 "session create, unknown host: exit 5"
like "$(cat "$T/dns.err")" "cannot find the relay's host relay\\.invalid" \
    "names the host that does not resolve"
like "$(json_get "$T/dns.json" 'j["message"]')" "relay\\.invalid" "in --json too"
lacks "$(cat "$T/dns.err")" "refused the session" "not a refusal either"

# A connection that is never answered (no SYN-ACK): the connect timeout
# (--stall-timeout) ends it.
held_port "$T/deaf" unanswered
DEAF=$(cat "$T/deaf")
XDG_CACHE_HOME=$T/c-a "$AIRLOX" --stall-timeout 3 --relay "http://127.0.0.1:$DEAF" \
    session create >/dev/null 2>"$T/deaf.err"
is $? 5 "session create, a connection never answered: exit 5"
like "$(cat "$T/deaf.err")" "cannot connect to 127\\.0\\.0\\.1:$DEAF: no answer for 3 s" \
    "names the address and the time waited"

# Through the hostile proxy: a session made through it while it is honest.
python3 "$top_srcdir/tests/client/hostile-proxy.py" "$REAL" "$T/mode" \
    "$T/pport" 2>"$T/proxy.log" &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/pport" || skip_all "the proxy did not start"
PROXY=http://$(head -n 1 "$T/pport")
PPORT=${PROXY##*:}
echo none >"$T/mode"
AIRLOX_RELAY=$PROXY create_session alice || skip_all "session create failed"
INV=$SENDER ax bob send text "hello" >/dev/null
ok $? "an honest proxy passes a message"

# A relay that hangs: no answer. --stall-timeout 3 here; the default (30 s)
# is checked once below.
echo hang >"$T/mode"
INV=$SENDER ax bob --stall-timeout 3 send text "into the void" \
    >/dev/null 2>"$T/hang.err"
is $? 5 "a hanging relay: exit 5"
like "$(cat "$T/hang.err")" "no answer from 127\\.0\\.0\\.1:$PPORT for 3 s" \
    "no answer from HOST:PORT for 3 s"
INV=$OWNER ax alice --stall-timeout 3 session show >/dev/null 2>"$T/hang2.err"
is $? 5 "session show against it: exit 5"
like "$(cat "$T/hang2.err")" "no answer from 127\\.0\\.0\\.1:$PPORT" "named the same way"

# A relay that drips its answer, a byte every 2 s after the headers.
echo drip >"$T/mode"
INV=$SENDER ax bob --stall-timeout 3 send text "drip" >/dev/null 2>"$T/drip.err"
is $? 5 "a dripping relay: exit 5"
like "$(cat "$T/drip.err")" "relay at 127\\.0\\.0\\.1:$PPORT stalled" "named as stalled"
# The default stall limit, 30 s: an answer, not a wait for the 120 s cap.
# (An outer limit of 110 s only stops a client that would wait for ever.)
AIRLOX_INVITE=$SENDER timeout 110 "$AX" bob send text "drip" >/dev/null \
    2>"$T/drip30.err"
is $? 5 "with the default --stall-timeout: exit 5, not cut by the outer limit"
like "$(cat "$T/drip30.err")" "stalled: almost nothing came for 30 s" "after 30 s"

# A relay that floods its answer: bounded memory (the client keeps at most
# 64 MiB of an answer, and the buffer it grows from), an error.
echo flood >"$T/mode"
set -- $(AIRLOX_INVITE=$OWNER rss /dev/null "$AX" alice session show \
    2>"$T/flood.err")
is "$1" 5 "an endless answer: exit 5"
ok $([ "${2:-999999}" -lt 220000 ] && echo 0 || echo 1) \
    "in bounded memory (peak ${2:-?} KiB)"
like "$(cat "$T/flood.err")" "larger than" "the message says the answer was too large"

# Broken event streams: watch ends with exit 5 and says why.
for m in sse-flood sse-garbage sse-html sse-silent; do
	echo "$m" >"$T/mode"
	set -- $(AIRLOX_INVITE=$OWNER rss "$T/$m.out" "$AX" alice \
	    --stall-timeout 2 watch 2>"$T/$m.err")
	is "$1" 5 "$m: watch ends with exit 5"
	ok $([ "${2:-999999}" -lt 100000 ] && echo 0 || echo 1) \
	    "$m: in bounded memory (peak ${2:-?} KiB)"
done
like "$(cat "$T/sse-flood.err")" "line or event over 2 MiB" "sse-flood: a line over 2 MiB"
like "$(cat "$T/sse-garbage.err")" "event" "sse-garbage: an event that does not parse"
like "$(cat "$T/sse-html.err")" "text/html, not events" "sse-html: not an event stream"
like "$(cat "$T/sse-silent.err")" "stalled: almost nothing came for 3 s" \
    "sse-silent: silent twice in a row (1.5 x --stall-timeout each)"

echo none >"$T/mode"
INV=$SENDER ax bob send text "after the storm" >/dev/null
ok $? "the honest proxy again: messages pass"
done_testing
