#!/bin/sh
# docker-defaults.sh: the runner's `docker` sandbox as most hosts have it:
# Debian's dockerd started with its own defaults (the docker0 bridge,
# iptables and masquerading on; tests/docker-lib.sh runs it in a network
# namespace of its own so its rules touch nothing else), and an image whose
# Python is Debian's python3-minimal (debootstrap --include=python3-minimal,
# cached as /var/cache/airlox-test/base-pyminimal.tar; the first run takes
# minutes). Checked: verify passes in network modes none and allow; a
# runner of a session without a package allowlist reads the image's Python
# version (which needs no importlib.metadata) and runs a Python job and a
# shell job; an interpreter that fails is refused with its own last error
# line in the reason.
#
# Skipped with the reason when AIRLOX_SKIP_DOCKER=1 (scripts/test.sh sets
# it for the sanitizer pass), without root, or when dockerd cannot start.
. "${top_srcdir:-.}/tests/lib.sh"
[ "${AIRLOX_SKIP_DOCKER:-0}" = 1 ] &&
    skip_all "AIRLOX_SKIP_DOCKER=1 (the Docker tests run in the first pass only)"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
. "$top_srcdir/tests/docker-lib.sh"
IMG=airlox-test/pyminimal:bookworm
docker_trap

docker_start defaults
$DOCKER info 2>/dev/null | grep -q 'Network:.*bridge' &&
    [ "$($DOCKER network ls --filter driver=bridge -q | grep -c .)" -ge 1 ]
ok $? "dockerd runs with its defaults: the default bridge network exists"
base=$(docker_cache_tar base-pyminimal python3-minimal) || exit 0
case $base in *.tar) ;; *) echo "$base"; exit 0 ;; esac
$DOCKER import "$base" "$IMG" >/dev/null
ok $? "an image with Debian's python3-minimal (debootstrap, cached)"
$DOCKER run --rm --network none "$IMG" python3 -c 'import shutil' \
    >/dev/null 2>&1
[ $? -ne 0 ]; ok $? "its Python lacks shutil (a minimal Python) (test can fail)"

mkdir -p "$T/vwork" "$T/home"
HOME=$T/home "$RUNNERD" verify --sandbox docker --image "$IMG" \
    --state-dir "$T/vstate" --work-root "$T/vwork" >"$T/verify.out" 2>&1
ok $? "verify passes in docker with a default dockerd"
grep -q '^FAIL' "$T/verify.out"
[ $? -ne 0 ]; ok $? "no probe fails"
HOME=$T/home "$RUNNERD" verify --sandbox docker --image "$IMG" \
    --allow example.com --state-dir "$T/vstate" --work-root "$T/vwork" \
    >"$T/verify-allow.out" 2>&1
ok $? "verify --allow passes with a default dockerd (egress through the runner's proxy)"

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell,python --timeout 60 \
    --memory 128
ok $? "an execute session without a package allowlist"
mkdir -p "$T/rwork"
HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name mini --sandbox docker \
    --image "$IMG" --state-dir "$T/rstate" --work-root "$T/rwork" \
    >>"$T/runner.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
wait_log "$T/runner.log" 'python: 3\.\|python jobs are refused' "$RUNNER_PID"
like "$(cat "$T/runner.log")" "python: 3\\.[0-9]+\\.[0-9]+ \\(docker:$IMG\\), 0 package" \
    "the runner reads the minimal Python's version for the session's jobs"
lacks "$(cat "$T/runner.log")" "did not say its version" \
    "without importing what a minimal Python lacks"
wait_for joined mini
INV=$OWNER ax alice session approve mini >"$T/approve.out" 2>&1
ok $? "the owner approves it (its verify report has no FAIL)"

printf 'import os, sys\nopen(os.environ["AIRLOX_OUT"] + "/m.txt", "w").write("minimal\\n")\nprint("py", sys.version_info[0], sys.version_info[1])\n' >"$T/job.py"
INV=$SENDER ax bob --json run --timeout 120s --on mini "$T/job.py" >"$T/p.json" 2>&1
ok $? "a Python job runs in the minimal image"
like "$(json_get "$T/p.json" 'j["stdout"]')" '^py 3 [0-9]+$' "with the image's python3"
is "$(json_get "$T/p.json" 'sorted(j["files"])')" "['m.txt']" "its file comes back"
INV=$SENDER ax bob --json run --timeout 120s --on mini -- sh -c 'ls /sys/class/net' \
    >"$T/s.json" 2>&1
is "$(json_get "$T/s.json" 'j["stdout"].split()')" "['lo']" \
    "a shell job: loopback only, though the daemon has a bridge"
kill "$RUNNER_PID" 2>/dev/null
wait "$RUNNER_PID" 2>/dev/null

# An interpreter that fails: its own last error line is the reason.
# (Debian's site hook, /etc/python3.11/sitecustomize.py, exits at start.)
$DOCKER run --name airlox-broken --network none "$IMG" sh -c \
    'echo "raise SystemExit(\"airlox-test: this interpreter is broken\")" \
    >>/etc/python3.11/sitecustomize.py' >"$T/broken-img.out" 2>&1 &&
    $DOCKER commit airlox-broken airlox-test/pybroken:1 >/dev/null &&
    $DOCKER rm airlox-broken >/dev/null
ok $? "an image whose python3 exits with an error at start"
[ $tap_failed -ne 0 ] && sed 's/^/#   /' "$T/broken-img.out"
HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name broken --sandbox docker \
    --image airlox-test/pybroken:1 --state-dir "$T/rstate2" \
    --work-root "$T/rwork" >>"$T/broken.log" 2>&1 &
BPID=$!
EXTRA_PIDS="$EXTRA_PIDS $BPID"
wait_log "$T/broken.log" 'python3 in the image' "$BPID"
like "$(cat "$T/broken.log")" \
    'python3 in the image airlox-test/pybroken:1 does not run \(exit 1\): (SystemExit: )?airlox-test: this interpreter is broken' \
    "the refusal names the interpreter's last error line"
kill "$BPID" 2>/dev/null
wait "$BPID" 2>/dev/null

[ $tap_failed -ne 0 ] && sed 's/^/#   runner: /' "$T/runner.log" | tail -n 30
done_testing
