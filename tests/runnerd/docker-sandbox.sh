#!/bin/sh
# docker-sandbox.sh: the runner's `docker` sandbox with the real
# relay, the real runner and the real client. It starts Debian's dockerd
# itself (tests/docker-lib.sh) and imports a small local image with python3
# made by debootstrap (cached as /var/cache/airlox-test/base-python.tar; the
# first run takes minutes), no registry. Checked: a shell job and a Python
# job run and return files; no network inside; the root file system is
# read-only; no capabilities; Docker's seccomp filter (ours) is there
# under the shim's; a timeout kills and removes the container; the memory
# limit gives killed_oom; a container left by a runner killed with -9 is
# removed when it restarts; `airlox-runnerd verify` passes in docker, in
# network modes none and allow (egress through the runner's proxy); a
# session's package allowlist gets a job image, built once and reused, and
# the result's env names the versions and docker:IMAGE.
#
# Skipped with the reason when AIRLOX_SKIP_DOCKER=1 (scripts/test.sh sets
# it for the sanitizer pass), without root, or when dockerd cannot start.
. "${top_srcdir:-.}/tests/lib.sh"
[ "${AIRLOX_SKIP_DOCKER:-0}" = 1 ] &&
    skip_all "AIRLOX_SKIP_DOCKER=1 (the Docker tests run in the first pass only)"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
. "$top_srcdir/tests/docker-lib.sh"
IMG=airlox-test/python:bookworm
docker_trap

docker_start
base=$(docker_cache_tar base-python python3 python3-venv python3-pip) || exit 0
case $base in *.tar) ;; *) echo "$base"; exit 0 ;; esac
$DOCKER import "$base" "$IMG" >/dev/null
ok $? "a local image with python3 (debootstrap, cached), no registry"

# The boundary probes, in a docker job's sandbox.
# A private HOME: verify plants a canary there (tests/runnerd/verify.sh,
# maybe running beside us, checks that none is left in the real one).
mkdir -p "$T/vwork" "$T/home"
HOME=$T/home "$RUNNERD" verify --sandbox docker --image "$IMG" --state-dir "$T/vstate" \
    --work-root "$T/vwork" >"$T/verify.out" 2>&1
ok $? "airlox-runnerd verify passes in the docker sandbox"
for p in write_outside root_ro capabilities nonroot seccomp syscall32 \
    io_uring userns net_only_lo direct_ip mountinfo; do
	like "$(cat "$T/verify.out")" "^PASS $p: " "verify: $p passes in docker"
done

# Mode allow: the shim's connections reach the runner's egress proxy
# through the socket in the job's control folder (the proxy answers 403).
HOME=$T/home "$RUNNERD" verify --sandbox docker --image "$IMG" \
    --allow example.com --state-dir "$T/vstate" --work-root "$T/vwork" \
    >"$T/verify-allow.out" 2>&1
ok $? "verify --allow passes in docker (egress through the runner's proxy)"
for p in proxy_env proxy_denied proxy_ip_literal proxy_metadata proxy_bypass; do
	like "$(cat "$T/verify-allow.out")" "^PASS $p: " "verify --allow: $p passes in docker"
done
like "$(cat "$T/verify-allow.out")" "^(PASS|SKIP) proxy_sni: " \
    "verify --allow: proxy_sni reported in docker (SKIP when example.com is out of reach)"

HOME=$T/home "$RUNNERD" verify --sandbox docker --image airlox-test/none:missing \
    --state-dir "$T/vstate" --work-root "$T/vwork" >"$T/missing.out" 2>&1
rc=$?
[ $rc -ne 0 ] && grep -q 'image airlox-test/none:missing does not exist' "$T/missing.out"
ok $? "a missing image is refused at start, plainly"

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell,python --timeout 8 \
    --memory 64
ok $? "an execute session (timeout 8 s, memory 64 MiB)"

start_runner() {
	HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name dock --sandbox docker \
	    --image "$IMG" --state-dir "$T/rstate" --work-root "$T/rwork" "$@" \
	    >>"$T/runner.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
ours() {	# the containers labelled as any airlox runner's
	$DOCKER ps -aq --filter label=org.airlox.runner | grep -c .
}
mkdir -p "$T/rwork"
start_runner
wait_for joined dock
ok $? "a docker runner joined the session"
INV=$OWNER ax alice session approve dock >/dev/null
ok $? "the owner approves it"
wait_for grep -q 'docker: image airlox-test/python:bookworm, python 3\.' "$T/runner.log"
ok $? "the runner checked python3 in the image at start"

INV=$SENDER ax bob --json run --timeout 90s --on dock -- sh -c \
    'echo hello > "$AIRLOX_OUT/a.txt"; id -u; pwd; ls /sys/class/net;
     grep -E "^(CapEff|Seccomp_filters):" /proc/self/status;
     grep " / / " /proc/self/mountinfo | cut -d" " -f6;
     touch /usr/x 2>/dev/null || echo root-not-writable;
     echo ws > /work/w.txt && echo work-writable' >"$T/s.json"
ok $? "a shell job in a container"
is "$(json_get "$T/s.json" 'j["status"]')" completed "status completed"
is "$(json_get "$T/s.json" 'j["env"]["sandbox"]')" docker "env names the docker sandbox"
is "$(json_get "$T/s.json" 'sorted(j["files"])')" "['a.txt']" "the file from \$AIRLOX_OUT comes back"
out=$(json_get "$T/s.json" 'j["stdout"]')
like "$out" '^2000000000$' "the job runs as the slot's unprivileged host uid"
like "$out" '^\$WORK$' "in /work (redacted)"
is "$(printf '%s\n' "$out" | sed -n '3p')" lo "no network inside: loopback only"
like "$out" '^CapEff:[[:space:]]+0000000000000000$' "capabilities empty (CapEff 0)"
like "$out" '^Seccomp_filters:[[:space:]]+([3-9]|[1-9][0-9])$' \
    "Docker's seccomp filter (ours) is loaded under the shim's two"
like "$out" '^ro(,|$)' "the root file system is mounted read-only"
like "$out" '^root-not-writable$' "and cannot be written"
like "$out" '^work-writable$' "the workspace can"
is "$(json_get "$T/s.json" 'j["peak_memory"] > 0')" True "peak memory read from the container's cgroup"
is "$(ours)" 0 "the container was removed after the job"

printf 'import os, socket, sys\nopen(os.environ["AIRLOX_OUT"] + "/py.txt", "w").write("from python\\n")\ntry:\n    socket.create_connection(("1.1.1.1", 443), timeout=3)\n    print("net: open")\nexcept OSError as e:\n    print("net:", e.errno)\nprint("py", sys.version_info[0])\nb = bytearray(40 << 20)\nb[::4096] = b"x" * len(b[::4096])\n' >"$T/job.py"
INV=$SENDER ax bob --json run --timeout 90s --on dock "$T/job.py" >"$T/p.json" 2>&1
ok $? "a Python job in a container"
is "$(json_get "$T/p.json" 'j["status"]')" completed "python job completed"
is "$(json_get "$T/p.json" 'sorted(j["files"])')" "['py.txt']" "its file comes back"
like "$(json_get "$T/p.json" 'j["stdout"]')" '^py 3$' "python3 of the image ran the file"
like "$(json_get "$T/p.json" 'j["stdout"]')" '^net: 101$' "no route out (ENETUNREACH)"
is "$(json_get "$T/p.json" 'j["peak_memory"] >= 40 << 20')" True \
    "its peak memory (40 MiB touched) is the container's, from its cgroup"

INV=$SENDER ax bob --json run --timeout 90s --on dock -- sleep 60 >"$T/to.json"
is $? 124 "a job over the session's timeout exits 124"
is "$(json_get "$T/to.json" 'j["status"]')" timeout "status timeout"
is "$(ours)" 0 "the timed-out container was killed and removed"

# Cancel: SIGTERM reaches the job through the shim (pid 1), then the
# container goes.
INV=$SENDER ax bob --json run --timeout 60s --on dock --no-wait -- sh -c \
    'trap "echo got-term; exit 7" TERM; echo begin; sleep 30 & wait' >"$T/bg.json"
BG=$(json_get "$T/bg.json" 'j["job"]')
began() { INV=$SENDER ax bob job logs -- "$BG" 2>/dev/null | grep -q begin; }
wait_for began
INV=$SENDER ax bob job cancel -- "$BG" >/dev/null
ok $? "job cancel of a job in a container"
INV=$SENDER ax bob job logs --follow --wait 30s -- "$BG" >"$T/logs.out" 2>"$T/logs.err"
is $? 121 "it ends cancelled (121)"
like "$(cat "$T/logs.out")" '^got-term$' "the job got SIGTERM first (graceful)"
is "$(ours)" 0 "and its container is removed"

INV=$SENDER ax bob --json run --timeout 90s --on dock -- \
    python3 -c 'b = bytearray(300 << 20); print(len(b))' >"$T/oom.json"
is "$(json_get "$T/oom.json" 'j["status"]')" killed_oom \
    "memory over the session's limit gives killed_oom"
is "$(ours)" 0 "and the container is removed"

# kill -9 of the runner leaves its running container; a restart removes it.
INV=$SENDER ax bob --json run --timeout 90s --on dock --no-wait -- sleep 60 \
    >"$T/left.json" 2>&1
running() { [ "$($DOCKER ps -q --filter label=org.airlox.runner | grep -c .)" -ge 1 ]; }
wait_for running
ok $? "a long job's container is running"
kill -9 "$RUNNER_PID"
wait "$RUNNER_PID" 2>/dev/null
is "$(ours)" 1 "the runner died (kill -9); its container was left"
start_runner
left_gone() { [ "$(ours)" -eq 0 ]; }
wait_for left_gone
ok $? "the restarted runner removed the container it left"
grep -q 'docker: removed 1 container(s) a previous run left' "$T/runner.log"
ok $? "and says so"
kill "$RUNNER_PID" 2>/dev/null
wait "$RUNNER_PID" 2>/dev/null

# A package allowlist: a job image per allowlist (the image plus the pins,
# from a wheel folder the test writes), built once and reused.
mkdir -p "$T/wheels"
python3 - "$T/wheels" 0.1.0 <<'PY'
import base64, hashlib, sys, zipfile
out, ver = sys.argv[1], sys.argv[2]
di = "cugrid-%s.dist-info" % ver
files = {
    "cugrid/__init__.py": '__version__ = "%s"\n' % ver,
    di + "/METADATA": "Metadata-Version: 2.1\nName: cugrid\nVersion: %s\n" % ver,
    di + "/WHEEL": "Wheel-Version: 1.0\nGenerator: airlox-test\n"
                   "Root-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
for name, text in files.items():
    d = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest())
    rec.append("%s,sha256=%s,%d" % (name, d.rstrip(b"=").decode(), len(text)))
rec.append(di + "/RECORD,,")
files[di + "/RECORD"] = "\n".join(rec) + "\n"
with zipfile.ZipFile("%s/cugrid-%s-py3-none-any.whl" % (out, ver), "w") as z:
    for name, text in files.items():
        z.writestr(name, text)
PY
ok $? "a wheel of cugrid 0.1.0 in a local folder"
create_session carol --mode execute --kinds shell,python --timeout 60 \
    --memory 256 --package cugrid==0.1.0
ok $? "a session that pins cugrid==0.1.0"
start_runner --find-links "$T/wheels" --state-dir "$T/rstate2"
wait_log "$T/runner.log" 'python: .*(docker:airlox-job:[0-9a-f]*), 1 package' "$RUNNER_PID"
ok $? "the runner built the job image for the allowlist"
is "$($DOCKER images -q 'airlox-job' | grep -c .)" 1 "one image, tagged airlox-job:<hash>"
wait_for joined dock
INV=$OWNER ax carol session approve dock >/dev/null
printf 'import cugrid\nprint("cugrid", cugrid.__version__)\n' >"$T/pkg.py"
INV=$SENDER ax dave --json run --timeout 90s --on dock "$T/pkg.py" >"$T/pkg.json" 2>&1
is "$(json_get "$T/pkg.json" 'j["stdout"]')" "cugrid 0.1.0" "the job imports the pinned package"
like "$(json_get "$T/pkg.json" 'j["env"]["packages"]')" "^\{'cugrid': '0\.1\.0'\}\$" \
    "env: packages, as the image's python reports them"
like "$(json_get "$T/pkg.json" 'j["env"]["python_source"]')" '^docker:airlox-job:[0-9a-f]+$' \
    "env: python_source docker:IMAGE"
like "$(json_get "$T/pkg.json" 'j["env"]["python"]')" '^3\.[0-9]+\.[0-9]+$' "env: the python version"
kill "$RUNNER_PID" 2>/dev/null
wait "$RUNNER_PID" 2>/dev/null
: >"$T/runner.log"
start_runner --find-links "$T/wheels" --state-dir "$T/rstate2"
wait_for grep -q 'python: .*(docker:airlox-job:' "$T/runner.log"
ok $? "a restarted runner has the runtime again"
is "$($DOCKER images -q 'airlox-job' | grep -c .)" 1 "by reusing the image, not building another"
kill "$RUNNER_PID" 2>/dev/null
wait "$RUNNER_PID" 2>/dev/null

# An image without python3, for a session that allows Python jobs.
mkdir -p "$T/empty/etc" && echo empty >"$T/empty/etc/hostname"
tar -C "$T/empty" -cf "$T/empty.tar" . && $DOCKER import "$T/empty.tar" airlox-test/empty:1 >/dev/null
HOME=$T/home AIRLOX_INVITE="$RUNNER" timeout 60 "$RUNNERD" --name nopy \
    --sandbox docker --image airlox-test/empty:1 --state-dir "$T/rstate3" \
    --work-root "$T/rwork" >"$T/nopy.log" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ]
ok $? "a runner whose image lacks python3 does not start ($rc)"
like "$(cat "$T/nopy.log")" 'the image airlox-test/empty:1 has no python3: add it, e\.g\. `apt-get install python3` in its Dockerfile' \
    "and says plainly what is missing"
[ $tap_failed -ne 0 ] && sed 's/^/#   runner: /' "$T/runner.log" | tail -n 30
done_testing
