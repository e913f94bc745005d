#!/bin/sh
# sandbox-vs-bwrap.sh: start-up overhead of running `true`, side by side:
# bare /bin/true, bubblewrap (Debian's bwrap; the target is ours within
# 1.2x of it), and airlox's local sandbox through tests/runnerd/sandbox-run
# (the runner's own code: user, mount, pid, net, ipc, uts, cgroup
# namespaces, pivot_root, seccomp, landlock, cgroup limits, disk watch).
# hyperfine when present (-N, no shell), else a timing loop in Python.
# Prints medians and the ratio ours/bwrap; no pass/fail.
#
# Two measurements:
#  A. whole commands (hyperfine): ours includes exec'ing and dynamically
#     linking the test harness sandbox-run (libcrypto, libsodium), which the
#     runner never pays per job;
#  B. per job as a runner pays it: sandbox-run -R times sandbox_start() to
#     sandbox_free() in one process (fork, no exec of ours per job), and
#     with -X the same loop times posix_spawn()+wait of bwrap and of bare
#     true. ROUNDS rounds of RUNS/ROUNDS runs each, alternating the three,
#     so a busy moment of the machine hits all of them alike.
#
#	bench/sandbox-vs-bwrap.sh [BUILDDIR]		(RUNS=200, ROUNDS=5)
set -u
B=${1:-/work/build-bench}
RUNS=${RUNS:-200}
ROUNDS=${ROUNDS:-5}
SBRUN=$B/tests/runnerd/sandbox-run
SHIM=$B/runnerd/airlox-shim
for f in "$SBRUN" "$SHIM"; do
	[ -x "$f" ] || { echo "sandbox-vs-bwrap: missing $f" >&2; exit 2; }
done
command -v bwrap >/dev/null || { echo "sandbox-vs-bwrap: no bwrap" >&2; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-sbx.XXXXXX") || exit 2
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM

echo "# machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' \
    /proc/cpuinfo | head -n 1), $(uname -r); $(bwrap --version)"
"$SBRUN" -E -b local | sed -n '1p' | sed 's/^/# ours: /'
"$SBRUN" -E -b local | grep -q 'NOT enforced' &&
    echo "# WARNING: the local sandbox is not enforced here"

# The sandbox with its directories made once (timing a fresh mktemp'd pair
# per run adds ~0.3 ms to ours, measured apart; a shell wrapper to make
# them would add far more than that and is left out).
mkdir -p "$T/w" "$T/o"
chmod 755 "$T/w" "$T/o"

BW="bwrap --unshare-all --die-with-parent --ro-bind / / --dev /dev --proc /proc true"
OURS="$SBRUN -b local -s $SHIM -w $T/w -o $T/o -- /bin/true"

# sanity: the job really runs and completes in the sandbox
r=$($OURS)
case $r in *'"status":"completed"'*'"exit_code":0,'*) ;;
*) echo "sandbox-vs-bwrap: ours did not complete: $r" >&2; exit 2 ;; esac

if command -v hyperfine >/dev/null; then
	hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$T/h.json" \
	    -n bare /bin/true -n bwrap "$BW" -n ours "$OURS" >"$T/h.out" 2>&1 ||
	    { cat "$T/h.out"; exit 2; }
	python3 - "$T/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for n in ("bare", "bwrap", "ours"):
    x = r[n]
    print("%-10s median %7.2f ms  mean %7.2f ms  min %7.2f ms  (%d runs)"
          % (n, x["median"] * 1e3, x["mean"] * 1e3, x["min"] * 1e3,
             len(x["times"])))
print("ratio ours/bwrap (medians): %.2f"
      % (r["ours"]["median"] / r["bwrap"]["median"]))
print("overhead over bare true (medians): bwrap %.2f ms, ours %.2f ms"
      % ((r["bwrap"]["median"] - r["bare"]["median"]) * 1e3,
         (r["ours"]["median"] - r["bare"]["median"]) * 1e3))
PY
else
	python3 - "$RUNS" "$BW" "$OURS" <<'PY'
import shlex, statistics, subprocess, sys, time
runs = int(sys.argv[1])
cmds = {"bare": ["/bin/true"], "bwrap": shlex.split(sys.argv[2]),
        "ours": shlex.split(sys.argv[3])}
t = {n: [] for n in cmds}
for i in range(runs + 10):
    for n, c in cmds.items():
        t0 = time.monotonic()
        subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
        if i >= 10:
            t[n].append(time.monotonic() - t0)
for n in cmds:
    print("%-6s median %7.2f ms (%d runs)" % (n, statistics.median(t[n]) * 1e3,
                                             runs))
print("ratio ours/bwrap (medians): %.2f"
      % (statistics.median(t["ours"]) / statistics.median(t["bwrap"])))
PY
fi

# B. per job, as the runner pays it (one process, alternating rounds).
echo "# per job inside one process (sandbox-run -R; $ROUNDS rounds)"
per=$((RUNS / ROUNDS))
[ "$per" -ge 1 ] || per=1
: >"$T/loop"
i=0
while [ $i -lt "$ROUNDS" ]; do
	"$SBRUN" -R "$per" -X -w "$T/w" -o "$T/o" -- /bin/true |
	    sed 's/^/bare /' >>"$T/loop" &&
	"$SBRUN" -R "$per" -X -w "$T/w" -o "$T/o" -- $BW |
	    sed 's/^/bwrap /' >>"$T/loop" &&
	"$SBRUN" -R "$per" -b local -s "$SHIM" -w "$T/w" -o "$T/o" -- /bin/true |
	    sed 's/^/ours /' >>"$T/loop" || { echo "sandbox-vs-bwrap: a loop failed" >&2; exit 2; }
	i=$((i + 1))
done
python3 - "$T/loop" <<'PY'
import statistics, sys
m = {}
for line in open(sys.argv[1]):
    f = line.split()
    m.setdefault(f[0], []).append(float(f[2]))   # each round's median
for n in ("bare", "bwrap", "ours"):
    print("%-10s median of round medians %7.2f ms  (rounds: %s)"
          % (n, statistics.median(m[n]), " ".join("%.2f" % x for x in m[n])))
print("ratio ours/bwrap per job (medians): %.2f"
      % (statistics.median(m["ours"]) / statistics.median(m["bwrap"])))
PY
