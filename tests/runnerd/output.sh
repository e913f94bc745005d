#!/bin/sh
# output.sh: everything a job writes comes back. A burst of output, binary
# bytes, stdout and stderr together: the client prints all of it, byte for
# byte when its output is not a terminal, and the result's signed sizes and
# SHA-256 match what came. `airlox result JOB` prints the output too, and
# --json carries it as "output" events. A job that writes far more than the
# session's largest item: the client and the runner keep their memory
# bounded, the output is cut at item_max, and the footer says so loudly
# with how much was dropped. 64 MB that all come back: run, run --json and
# result JOB print them, and the runner sends them, in bounded memory. A
# job that fills the session gets its result all the same, the footer
# saying how much was dropped. With the real relay, runner and client.
#
# AIRLOX_TEST_BIG (default 200000000) is how many bytes the big job writes;
# raise it (1000000000) to try a gigabyte by hand.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
BIG=${AIRLOX_TEST_BIG:-200000000}

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 300 \
    --memory 256 --item-max 8M --session-max 100M
ok $? "an execute session (largest item 8 MB)"

# Memory is measured below: a sanitizer build's quarantine of freed memory
# (256 MB by default) would be counted as ours.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4"
export ASAN_OPTIONS
runner_up box
ok $? "a runner joined and was approved"

run() {	# run OUT [ARGS...]: airlox run as bob; stdout in $T/OUT.out
	_o=$1
	shift
	INV=$SENDER ax bob run --timeout 300s --on box "$@" >"$T/$_o.out" \
	    2>"$T/$_o.err"
}
sha() { sha256sum "$1" | cut -d' ' -f1; }

# A burst: 60000 lines (about 350 KB) at once.
run burst -- seq 1 60000
is $? 0 "a burst of output: exit 0"
seq 1 60000 >"$T/burst.want"
is "$(sha "$T/burst.out")" "$(sha "$T/burst.want")" \
    "all of it came, line for line ($(wc -c <"$T/burst.out") bytes)"

# Every byte value, 3 MB of them (several progress items): exactly.
GEN='import sys; b = bytes(range(256)) * 4096; [sys.stdout.buffer.write(b) for _ in range(3)]'
run bin -- python3 -c "$GEN"
python3 -c "$GEN" >"$T/bin.want"
is "$(sha "$T/bin.out")" "$(sha "$T/bin.want")" \
    "binary output, 3 MB: the same bytes (not a terminal: printed as they are)"

# stdout and stderr, both large.
run both -- sh -c 'seq 1 100000; seq 100000 -1 1 >&2; echo tail-out'
{ seq 1 100000; echo tail-out; } >"$T/both.want"
seq 100000 -1 1 >"$T/both.wanterr"
is "$(sha "$T/both.out")" "$(sha "$T/both.want")" "stdout whole, with stderr large too"
grep -v -e '^──' -e '^env ·' -e '^box · job ' "$T/both.err" >"$T/both.gotterr"
is "$(sha "$T/both.gotterr")" "$(sha "$T/both.wanterr")" "stderr whole"
lacks "$(cat "$T/both.err")" "OUTPUT CUT" "nothing dropped, nothing said"

# --json: "output" events carry all of it; the result repeats the start.
INV=$SENDER ax bob --json run --timeout 300s --on box -- seq 1 60000 \
    >"$T/j.json" 2>"$T/j.err"
python3 -c 'import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
out = "".join(e["data"] for e in ev if e.get("event") == "output" and e["stream"] == "stdout")
res = [e for e in ev if e.get("event") == "result"][0]
want = "".join("%d\n" % i for i in range(1, 60001))
assert out == want, (len(out), len(want))
assert res["stdout"] == want and res["stdout_bytes"] == len(want), res.get("stdout_bytes")
assert res["stdout_dropped"] == 0 and res["stdout_truncated"] is False
' "$T/j.json"
ok $? "--json: output events carry every line, and the result repeats them"

# airlox result JOB: the output, then the footer.
J=$(INV=$SENDER ax bob run --on box --no-wait -- seq 1 20000 2>/dev/null)
INV=$SENDER ax bob result --wait 120s "$J" >"$T/res.out" 2>"$T/res.err"
is "$?:$(sha "$T/res.out")" "0:$(seq 1 20000 | sha256sum | cut -d' ' -f1)" \
    "airlox result JOB prints the job's whole output"
like "$(cat "$T/res.err")" 'completed · exit 0 .* signed by runner box' \
    "  then the footer"
like "$(grep -A1 'signed by runner' "$T/res.err" | tail -1)" \
    '^env · sandbox process · airlox [0-9]' \
    "  and under it the result's env, on one line"

# Far more than the session's largest item: memory stays bounded and the
# footer says loudly what was dropped.
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"; }
# measured OUT WHO ARGS...: airlox ARGS as WHO (the sender invite); its
# stdout and stderr in $T/OUT.out and .err, its exit code and peak memory
# (KB) in $T/OUT.rss.
measured() {
	_o=$1 _w=$2
	shift 2
	python3 - "$AX" "$T/$_o" "$SENDER" "$_w" "$@" <<'PY' >"$T/$_o.rss"
import os, resource, subprocess, sys
ax, out, inv, who = sys.argv[1:5]
env = dict(os.environ, AIRLOX_INVITE=inv)
with open(out + ".out", "wb") as o, open(out + ".err", "wb") as e:
    rc = subprocess.call([ax, who] + sys.argv[5:], stdout=o, stderr=e,
        env=env)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
before=$(hwm $RUNNER_PID)
measured big bob run --timeout 600s --on box -- head -c "$BIG" /dev/zero
read rc crss <"$T/big.rss"
is "$rc" 0 "a job writing $BIG bytes completes (exit 0)"
got=$(wc -c <"$T/big.out")
[ "$got" -gt 4000000 ] && [ "$got" -le 8388608 ]
ok $? "the output came up to the session's largest item ($got bytes)"
like "$(cat "$T/big.err")" "^!! OUTPUT CUT: [0-9]+ bytes of stdout .*largest item" \
    "the footer says loudly that output was cut, and why"
dropped=$(sed -n 's/^!! OUTPUT CUT: \([0-9]*\) bytes of stdout.*/\1/p' "$T/big.err")
is "$((dropped + got))" "$BIG" "  and how much was dropped ($dropped bytes)"
after=$(hwm $RUNNER_PID)
[ "$after" -lt $((before + 50000)) ]
ok $? "the runner's memory stayed bounded (peak $before KB before, $after KB after)"

# A large output that all comes back (the session allows 100 MB items):
# run, run --json and result JOB print it with bounded memory.
create_session erin --mode execute --kinds shell --timeout 300 \
    --memory 256 --item-max 100M --session-max 300M
runner_up wide
ok $? "a session with 100 MB items, and its runner"
LARGE=64000000
before=$(hwm $RUNNER_PID)
measured large frank run --timeout 600s --on wide -- head -c "$LARGE" \
    /dev/urandom
read rc crss <"$T/large.rss"
is "$rc:$(wc -c <"$T/large.out")" "0:$LARGE" "a job's $LARGE bytes all came back"
lacks "$(cat "$T/large.err")" "OUTPUT CUT" "  nothing dropped"
[ "$crss" -lt 48000 ]
ok $? "the client printed them with bounded memory (peak $crss KB)"
after=$(hwm $RUNNER_PID)
[ "$after" -lt $((before + 48000)) ]
ok $? "the runner sent them with bounded memory (peak $before KB before, $after KB after)"
J=$(sed -n '1s/^wide · job \([A-Za-z0-9_-]*\) · .*/\1/p' "$T/large.err")
measured again frank result -- "$J"
read rc crss <"$T/again.rss"
is "$rc:$(sha "$T/again.out")" "0:$(sha "$T/large.out")" \
    "result JOB prints the same $LARGE bytes"
[ "$crss" -lt 48000 ]
ok $? "  with bounded memory (peak $crss KB)"
measured json frank --json run --timeout 600s --on wide -- sh -c \
    'yes 012345678 | head -c "$0"' "$LARGE"
read rc crss <"$T/json.rss"
python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("event") == "output" and e["stream"] == "stdout":
        n += len(e["data"])
    elif e.get("event") == "result":
        r = e
assert n == int(sys.argv[2]) and r["stdout_bytes"] == n, (n, r["stdout_bytes"])
assert r["stdout_truncated"] is True and len(r["stdout"]) == 1 << 20
assert r["stdout"] == ("012345678\n" * (1 << 17))[:1 << 20]
' "$T/json.out" "$LARGE"
ok $? "run --json: output events carry the $LARGE bytes, the result the first MiB"
[ "$rc" -eq 0 ] && [ "$crss" -lt 48000 ]
ok $? "  exit 0, with bounded memory (peak $crss KB)"

# A session that fills up: the relay refuses more output, yet the result
# (a payload-less result may go a little past the session's size) comes,
# and the footer says the session is full.
create_session carol --mode execute --kinds shell --timeout 300 \
    --memory 256 --item-max 4M --session-max 6M
runner_up small
ok $? "a second session, 6 MB in all, and its runner"
INV=$SENDER ax dave run --timeout 300s --on small -- head -c 10000000 /dev/zero \
    >"$T/f1.out" 2>"$T/f1.err"
like "$(cat "$T/f1.err")" "^!! OUTPUT CUT: .*largest item" "a first job: cut at 4 MB"
INV=$SENDER ax dave run --timeout 300s --on small -- head -c 10000000 /dev/zero \
    >"$T/f2.out" 2>"$T/f2.err"
is $? 0 "a second job fills the session: its result still comes (exit 0)"
like "$(cat "$T/f2.err")" "^!! OUTPUT CUT: .*session is full" \
    "  and the footer says the session is full"
got=$(wc -c <"$T/f2.out")
[ "$got" -lt 4194304 ]
ok $? "  with what fit ($got bytes)"
dropped=$(sed -n 's/^!! OUTPUT CUT: \([0-9]*\) bytes of stdout.*/\1/p' "$T/f2.err")
is "$((dropped + got))" 10000000 "  and how much was dropped ($dropped bytes)"
done_testing
