#!/bin/sh
# tree-vs-rsync.sh: keeping a working tree warm on another machine, side by
# side on one host: `airlox run --tree -- true` (a loopback relay, a local
# runner with the local sandbox) against two rsync lines, each followed by
# `ssh HOST true` to a private sshd (Debian's openssh-server on a loopback
# port, a throwaway host key and user key in a temporary directory):
#   rsync        `rsync -a --delete` over that ssh (what a remote box needs)
#   rsync-local  `rsync -a --delete` to a local directory (the floor: no
#                network at all)
# for the same synthetic git checkout. Three cases:
#
#   cold     the first sync: airlox --fresh (an empty workspace, the full
#            tree), rsync into an empty directory
#   same     a resync with nothing changed
#   change   a resync after appending a line to CHANGE files (default 1)
#
# Each case is timed with hyperfine (RUNS runs, a shell around each
# command for both sides); bytes sent are read once per case from
# `airlox --json run` (the tree's archive or delta) and `rsync --stats`
# ("Total bytes sent", before ssh's own framing). Prints medians, means,
# ratios airlox/rsync and the bytes; no pass/fail.
#
#	bench/tree-vs-rsync.sh [BUILDDIR]
#	    FILES=5000 MB=50 CHANGE=1 RUNS=10 COLD_RUNS=5
set -u
B=${1:-/work/build-bench}
FILES=${FILES:-5000}
MB=${MB:-50}
CHANGE=${CHANGE:-1}
RUNS=${RUNS:-10}
COLD_RUNS=${COLD_RUNS:-5}
RELAYD=$B/relayd/airlox-relayd
AIRLOX=$B/client/airlox
RUNNERD=$B/runnerd/airlox-runnerd
SSHD=/usr/sbin/sshd

die() {
	echo "tree-vs-rsync: $*" >&2
	exit 2
}
for f in "$RELAYD" "$AIRLOX" "$RUNNERD"; do
	[ -x "$f" ] || die "missing $f (build $B first)"
done
[ -x "$SSHD" ] || die "no $SSHD (apt-get install openssh-server)"
for c in rsync ssh ssh-keygen hyperfine git python3; do
	command -v "$c" >/dev/null || die "needs $c (the bench rows of scripts/install-deps.sh)"
done
[ "$(id -u)" -eq 0 ] || die "the runner's local sandbox needs root here"

T=$(mktemp -d "${TMPDIR:-/tmp}/bench-tree.XXXXXX") || exit 2
chmod 755 "$T"
PIDS=
cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# wait_for CMD...: up to 30 s, 100 ms apart.
wait_for() {
	i=0
	while [ $i -lt 300 ]; do
		"$@" >/dev/null 2>&1 && return 0
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

echo "# machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' \
    /proc/cpuinfo | head -n 1), $(uname -r)"
echo "# $(rsync --version | head -n 1); $(ssh -V 2>&1); $(hyperfine --version)"
echo "# load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

# The tree: a git checkout of FILES files, MB megabytes in all, in
# directories of 100, with incompressible (seeded pseudo-random) contents.
R=$T/repo
mkdir -p "$R"
python3 - "$R" "$FILES" "$MB" <<'PY'
import os, random, sys
root, files, mb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(6)
avg = mb * 1024 * 1024 // files
for i in range(files):
    d = os.path.join(root, "d%03d" % (i // 100))
    os.makedirs(d, exist_ok=True)
    n = rnd.randint(avg // 4, avg * 7 // 4)
    with open(os.path.join(d, "f%04d.bin" % i), "wb") as f:
        f.write(rnd.randbytes(n))
PY
(
	cd "$R" && git init -q . && git config commit.gpgsign false &&
	    git add . && GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.org \
	    GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.org \
	    git commit -q -m tree
) || die "cannot make the git checkout"
echo "# tree: $(find "$R" -path "$R/.git" -prune -o -type f -printf '%s\n' |
    awk '{ n++; b += $1 } END { printf "%d files, %d bytes", n, b }')"
# The files a change touches: the first CHANGE files, one per directory
# while there are directories enough.
CHANGED=$(for d in $(ls -d "$R"/d* | head -n "$CHANGE"); do
	echo "$d/$(ls "$d" | head -n 1)"
done)
[ "$(echo "$CHANGED" | wc -l)" -eq "$CHANGE" ] ||
    die "CHANGE=$CHANGE: the tree has $(ls -d "$R"/d* | wc -l) directories"

# sshd on a loopback port: its own host key, one user key, no PAM.
S=$T/ssh
mkdir -p "$S" && chmod 700 "$S"
ssh-keygen -q -t ed25519 -N '' -f "$S/host_key" || die "ssh-keygen"
ssh-keygen -q -t ed25519 -N '' -f "$S/id" || die "ssh-keygen"
cp "$S/id.pub" "$S/authorized_keys"
SPORT=$(free_port)
cat >"$S/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $SPORT
HostKey $S/host_key
AuthorizedKeysFile $S/authorized_keys
PidFile $S/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
EOF
[ -d /run/sshd ] || mkdir -p -m 755 /run/sshd	# sshd's privilege separation
"$SSHD" -D -e -f "$S/sshd_config" 2>>"$T/sshd.log" &
PIDS="$PIDS $!"
SSH="ssh -p $SPORT -i $S/id -o BatchMode=yes -o StrictHostKeyChecking=no"
SSH="$SSH -o UserKnownHostsFile=$S/known_hosts -o LogLevel=ERROR"
HOST=$(id -un)@127.0.0.1
wait_for $SSH "$HOST" true || { cat "$T/sshd.log"; die "sshd did not start"; }
DST=$T/dst
RSYNC="rsync -a --delete --exclude=/.git -e '$SSH' $R/ $HOST:$DST/"
RS_CMD="$RSYNC && $SSH $HOST true"
DSTL=$T/dstl
RL_CMD="rsync -a --delete --exclude=/.git $R/ $DSTL/ && $SSH $HOST true"

# The relay, a session with the host-runner profile, a runner, approved.
mkdir -p "$T/data"
"$RELAYD" --listen 127.0.0.1:0 --port-file "$T/port" --plain-http \
    --data "$T/data" --rate-limit 100000 --allow-no-expiry \
    --max-session-size 16G >>"$T/relay.log" 2>&1 &
PIDS="$PIDS $!"
wait_for test -s "$T/port" || die "the relay did not start"
export AIRLOX_RELAY=http://$(head -n 1 "$T/port")
export XDG_CACHE_HOME=$T/cache
unset AIRLOX_INVITE AIRLOX_NAME http_proxy https_proxy HTTP_PROXY HTTPS_PROXY
AIRLOX_NAME=owner "$AIRLOX" --json session create --profile host-runner \
    --kinds shell >"$T/create.json" || die "session create failed"
inv() {
	python3 -c 'import json,sys
print(json.loads(open(sys.argv[1]).read().splitlines()[-1])["invites"][sys.argv[2]])' \
	    "$T/create.json" "$1"
}
OWNER=$(inv owner)
RUNNER=$(inv runner)
SENDER=$(inv sender)
mkdir -p "$T/work"
AIRLOX_INVITE=$RUNNER "$RUNNERD" --name box --workspace --state-dir "$T/rstate" \
    --work-root "$T/work" >>"$T/runner.log" 2>&1 &
PIDS="$PIDS $!"
joined() {
	AIRLOX_INVITE=$OWNER AIRLOX_NAME=owner "$AIRLOX" session approve box \
	    >/dev/null 2>&1
}
wait_for joined || { tail "$T/runner.log"; die "the runner did not join"; }
export AIRLOX_INVITE=$SENDER AIRLOX_NAME=bench
AX_CMD="cd $R && $AIRLOX run --on box --tree -- true"
AX_COLD="cd $R && $AIRLOX run --on box --tree --fresh -- true"

# Bytes sent by one run of each side.
ax_bytes() {	# ax_bytes [--fresh]: the tree bytes one airlox run sent
	(cd "$R" && "$AIRLOX" --json run --on box --tree "$@" -- true) \
	    >"$T/ax.json" 2>"$T/ax.err" || { cat "$T/ax.err" >&2; echo "?"; return; }
	python3 -c 'import json,sys
s = [j["tree"]["sent"] for j in map(json.loads, open(sys.argv[1]))
     if j.get("event") == "job"]
print(s[-1] if s else "?")' "$T/ax.json"
}
rs_bytes() {
	eval "rsync -a --delete --stats --exclude=/.git -e '$SSH' $R/ $HOST:$DST/" |
	    sed -n 's/^Total bytes sent: //p' | tr -d ,
}
rl_bytes() {
	rsync -a --delete --stats --exclude=/.git "$R/" "$DSTL/" |
	    sed -n 's/^Total bytes sent: //p' | tr -d ,
}
TOUCH="for f in $(echo $CHANGED); do date +%s%N >>\$f; done"
touch_some() {
	eval "$TOUCH"
}

# hyperfine NAME ARGS...: results in $T/NAME.json
hf() {
	n=$1
	shift
	hyperfine --style basic --export-json "$T/$n.json" "$@" \
	    >"$T/$n.out" 2>&1 || { cat "$T/$n.out"; die "hyperfine $n failed"; }
}

# Sanity: both sides work, and the runner holds the tree.
eval "$RS_CMD" || die "rsync over ssh failed"
[ "$(ls "$DST/d000" | wc -l)" -eq 100 ] || die "rsync did not copy the tree"
(cd "$R" && "$AIRLOX" run --on box --tree -- sh -c \
    'test "$(ls d000 2>/dev/null | wc -l)" -eq 100' \
    >/dev/null 2>"$T/sanity.err") || { cat "$T/sanity.err"; die "airlox run failed"; }

echo "# cold: $COLD_RUNS runs each; same, change ($CHANGE file(s)): $RUNS runs each"
# (hyperfine: one --prepare per command, in the order of the commands)
hf cold --runs "$COLD_RUNS" \
    --prepare true --prepare "rm -rf $DST" --prepare "rm -rf $DSTL" \
    -n airlox "$AX_COLD" -n rsync "$RS_CMD" -n rsync-local "$RL_CMD"
AX_COLD_B=$(ax_bytes --fresh)
rm -rf "$DST" "$DSTL"
RS_COLD_B=$(rs_bytes)
RL_COLD_B=$(rl_bytes)

hf same --runs "$RUNS" --warmup 1 \
    -n airlox "$AX_CMD" \
    -n rsync "$RS_CMD" \
    -n rsync-local "$RL_CMD"
AX_SAME_B=$(ax_bytes)
RS_SAME_B=$(rs_bytes)
RL_SAME_B=$(rl_bytes)

hf change --runs "$RUNS" --warmup 1 \
    --prepare "$TOUCH" \
    -n airlox "$AX_CMD" \
    -n rsync "$RS_CMD" \
    -n rsync-local "$RL_CMD"
touch_some
AX_CHANGE_B=$(ax_bytes)
touch_some
RS_CHANGE_B=$(rs_bytes)
touch_some
RL_CHANGE_B=$(rl_bytes)

python3 - "$T" "$(cat $CHANGED | wc -c)" \
    "$AX_COLD_B" "$RS_COLD_B" "$RL_COLD_B" "$AX_SAME_B" "$RS_SAME_B" \
    "$RL_SAME_B" "$AX_CHANGE_B" "$RS_CHANGE_B" "$RL_CHANGE_B" <<'PY'
import json, sys
t, changed = sys.argv[1], sys.argv[2]
b = sys.argv[3:]
sides = ("airlox", "rsync", "rsync-local")
print()
print("%-8s %-11s %10s %10s %10s  %12s" % ("case", "side", "median ms",
      "mean ms", "min ms", "bytes sent"))
for i, case in enumerate(("cold", "same", "change")):
    r = {x["command"]: x for x in json.load(open("%s/%s.json" % (t, case)))["results"]}
    for j, side in enumerate(sides):
        x = r[side]
        print("%-8s %-11s %10.1f %10.1f %10.1f  %12s" % (case, side,
              x["median"] * 1e3, x["mean"] * 1e3, x["min"] * 1e3,
              b[3 * i + j]))
    for side in sides[1:]:
        print("%-8s ratio airlox/%s (medians): %.2f" % (case, side,
              r["airlox"]["median"] / r[side]["median"]))
print()
print("the changed files hold %s bytes; bytes sent: airlox counts the "
      "tree's archive or delta, rsync its own protocol's bytes" % changed)
PY
echo "# load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
