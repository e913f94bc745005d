#!/bin/sh
# python.sh: Python runtimes and pinned packages, end to end: the
# real relay, the real runner with its local sandbox, the real client. No
# package index here: the test writes its own wheels (cugrid 0.1.0 and
# 0.2.1) into a folder the runner gets as --find-links.
#
# Checked: the pin is honoured (0.1.0 though 0.2.1 is in the folder); the
# result's signed env names python, packages and python_source and no
# path; the venv is read-only in the job and its path is redacted; a
# requirement outside the allowlist is refused not_allowed; a version in
# --require is a usage error; a second session with the same allowlist
# reuses the venv; --python with another version of a pinned package, and
# a runtime the machine lacks, are refused at join with their messages; a
# --python that fits is used as it is; a pin pip cannot meet refuses the
# session's python jobs, naming it.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
SYSPY=/usr/bin/python3
[ -x "$SYSPY" ] || skip_all "no $SYSPY"
"$SYSPY" -c 'import venv, ensurepip' 2>/dev/null ||
    skip_all "no python3-venv (ensurepip) for $SYSPY"
RT=$("$SYSPY" -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
[ -x "/usr/bin/$RT" ] || [ -x "/usr/local/bin/$RT" ] ||
    skip_all "$SYSPY is not /usr/bin/$RT"
SYSVER=$("/usr/bin/$RT" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null ||
    "/usr/local/bin/$RT" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')
# A runtime this machine lacks: python3.12 on Debian 12, else an unlikely one.
MISSING=python3.12
for d in /usr/local/bin /usr/bin /bin; do
	[ -e "$d/$MISSING" ] && MISSING=python3.99
done

# The wheels: a wheel is a ZIP with the package, METADATA, WHEEL, RECORD.
mkdir -p "$T/wheels"
for v in 0.1.0 0.2.1; do
	"$SYSPY" - "$T/wheels" "$v" <<'PY' || skip_all "cannot write wheels"
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
done
ok 0 "wheels of cugrid 0.1.0 and 0.2.1 in one folder"

start_relay || skip_all "the relay did not start"

create_session alice --mode execute --kinds shell,python --timeout 120 \
    --memory 512 --runtime "$RT" --package cugrid==0.1.0
ok $? "a session with runtime $RT and the pin cugrid==0.1.0"
A_OWNER=$OWNER
A_SENDER=$SENDER
A_RUNNER=$RUNNER
like "$(json_get "$T/create.json" 'j["limits"]["jobs"]["runtime"]')" "^$RT\$" \
    "session create shows the runtime"
INV=$A_OWNER ax alice --json session show >"$T/show.json"
like "$(json_get "$T/show.json" 'j["jobs"]["runtime"], j["jobs"]["packages"]')" \
    "^\('$RT', \['cugrid==0.1.0'\]\)\$" "session show lists runtime and allowlist"
like "$(INV=$A_OWNER ax alice session show)" "^python +$RT; packages cugrid==0\.1\.0\$" \
    "and says them in its text"

# start_runner INVITE STATEDIR LOG [ARGS...]: in the background.
start_runner() {
	inv=$1 sd=$2 log=$3
	shift 3
	AIRLOX_INVITE="$inv" "$RUNNERD" --name box --labels cpu \
	    --state-dir "$sd" --work-root "$sd-work" "$@" >>"$log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
stop_runner() {
	kill -TERM "$RUNNER_PID" 2>/dev/null
	wait "$RUNNER_PID" 2>/dev/null
}
ready() {
	wait_log "$1" 'python: .*(\(venv\|--python\|system\))' \
	    "$RUNNER_PID" && wait_log "$1" 'joined session' "$RUNNER_PID"
}

start_runner "$A_RUNNER" "$T/rstate" "$T/runner.log" --find-links "$T/wheels"
ready "$T/runner.log"
ok $? "the runner made its venv at join"
grep -q 'making venv-' "$T/runner.log"
ok $? "the venv was made (not found ready)"
VENV=$(ls -d "$T"/rstate/cache/venv-* 2>/dev/null | head -n 1)
[ -n "$VENV" ] && [ -x "$VENV/bin/python3" ]
ok $? "the venv is in the runner's cache, outside every workspace"
ls -d "$T"/rstate/cache/tmp-venv-* >/dev/null 2>&1
ok $([ $? -ne 0 ] && echo 0 || echo 1) "no half-made venv is left"
INV=$A_OWNER ax alice session approve box --label cpu >/dev/null
ok $? "the owner approves the runner"

cat >"$T/job.py" <<'PY'
import os, sys
import cugrid
print("cugrid", cugrid.__version__)
print("exe", sys.executable)
print("file", cugrid.__file__)
try:
    open(os.path.join(os.path.dirname(cugrid.__file__), "x"), "w")
    print("venv writable")
except OSError as e:
    print("venv read-only", e.errno)
PY
INV=$A_SENDER ax bob --json run --timeout 120s --on box --require cugrid \
    "$T/job.py" >"$T/r1.json" 2>"$T/r1.err"
is $? 0 "a python job with --require cugrid completes"
OUT=$(json_get "$T/r1.json" 'j["stdout"]')
like "$OUT" '^cugrid 0\.1\.0$' "the pin is honoured: 0.1.0, though 0.2.1 is in the folder"
like "$OUT" '^venv read-only 30$' "the venv is read-only inside the job (EROFS)"
like "$OUT" '^exe \$RUNTIME/bin/python3$' "the interpreter's folder is redacted to \$RUNTIME"
like "$OUT" '^file \$RUNTIME/lib/' "the venv's folder is redacted to \$RUNTIME"
like "$(json_get "$T/r1.json" 'j["env"]["python"]')" "^$SYSVER\$" \
    "env: python is the version of the machine's $RT"
like "$(json_get "$T/r1.json" 'j["env"]["packages"]')" "^\{'cugrid': '0\.1\.0'\}\$" \
    "env: packages names each allowlisted package's installed version"
like "$(json_get "$T/r1.json" 'j["env"]["python_source"]')" '^venv$' \
    "env: python_source is venv"
INSTALLED=$("$VENV/bin/python3" -c 'from importlib import metadata; print(metadata.version("cugrid"))')
is "$INSTALLED" "0.1.0" "env matches what the venv holds"
json_get "$T/r1.json" 'j["env"]' | grep -q "$T"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "env carries no path"

INV=$A_SENDER ax bob --json run --timeout 60s --on box --require cugrid \
    --require requests "$T/job.py" >"$T/r2.json" 2>"$T/r2.err"
is $? 120 "a requirement outside the allowlist: refused (exit 120)"
like "$(json_get "$T/r2.json" 'j["status"], j["reason"]')" \
    "^\('refused', 'not_allowed'\)\$" "the signed refusal says not_allowed"
like "$(json_get "$T/r2.json" 'j["stderr"]')" 'requests' \
    "the refusal names the package"
INV=$A_SENDER ax bob run --timeout 60s --on box --require CuGrid \
    -- echo shell ok >"$T/r3.out" 2>&1
like "$(cat "$T/r3.out")" '^shell ok$' \
    "a requirement is matched by its PEP 503 name (CuGrid is cugrid)"
like "$(grep -A1 'signed by runner' "$T/r3.out" | tail -1)" \
    "^env · sandbox local · airlox [0-9][^ ]* · python $SYSVER · from venv · cugrid 0\\.1\\.0\$" \
    "text: the env on one line under the footer, with each package's version"
INV=$A_SENDER ax bob run --timeout 10s --on box --require 'cugrid==0.2.1' \
    "$T/job.py" >"$T/r4.out" 2>&1
is $? 2 "a version in --require is a usage error"
like "$(cat "$T/r4.out")" 'name only.*allowlist' "and says the session pins versions"

stop_runner

# --python with cugrid 0.2.1: refused at join, with the exact message.
"$SYSPY" -m venv "$T/pyv" >/dev/null 2>&1 &&
    "$T/pyv/bin/python3" -m pip install -q --no-index --disable-pip-version-check \
    --find-links "$T/wheels" cugrid==0.2.1 >/dev/null 2>&1
ok $? "a venv of the test's own with cugrid 0.2.1"
AIRLOX_INVITE="$A_RUNNER" timeout 120 "$RUNNERD" --name box2 \
    --state-dir "$T/rstate2" --work-root "$T/rstate2-work" \
    --python "$T/pyv/bin/python3" >"$T/runner3.log" 2>&1
rc=$?
ok $([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 0 || echo 1) \
    "--python with another version of a pinned package: the runner stops"
like "$(cat "$T/runner3.log")" \
    '--python has cugrid 0\.2\.1, but the session pins cugrid==0\.1\.0$' \
    "its message names the version and the pin"

# --python with the pinned version: used as it is, attached read-only.
"$SYSPY" -m venv "$T/pyok" >/dev/null 2>&1 &&
    "$T/pyok/bin/python3" -m pip install -q --no-index --disable-pip-version-check \
    --find-links "$T/wheels" cugrid==0.1.0 >/dev/null 2>&1
ok $? "a venv of the test's own with cugrid 0.1.0"
AIRLOX_INVITE="$A_RUNNER" "$RUNNERD" --name box4 --labels cpu \
    --state-dir "$T/rstate5" --work-root "$T/rstate5-work" \
    --python "$T/pyok/bin/python3" >>"$T/runner6.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
ready "$T/runner6.log"
ok $? "--python with the pinned version: the runner joins"
INV=$A_OWNER ax alice session approve box4 --label cpu >/dev/null
INV=$A_SENDER ax bob --json run --timeout 120s --on box4 --require cugrid \
    "$T/job.py" >"$T/r7.json" 2>&1
OUT=$(json_get "$T/r7.json" 'j["stdout"]')
like "$OUT" '^cugrid 0\.1\.0$' "its job imports the interpreter's cugrid"
like "$OUT" '^venv read-only 30$' "its prefix is read-only in the job"
like "$OUT" '^exe \$RUNTIME/bin/python3$' "and redacted to \$RUNTIME"
like "$(json_get "$T/r7.json" 'j["env"]["python_source"], j["env"]["packages"]')" \
    "^\('--python', \{'cugrid': '0\.1\.0'\}\)\$" "env: python_source --python, its packages"
stop_runner

# A runtime the machine lacks: refused at join, naming it.
create_session erin --mode execute --kinds python --timeout 60 \
    --memory 256 --runtime "$MISSING"
AIRLOX_INVITE="$RUNNER" timeout 120 "$RUNNERD" --name box3 \
    --state-dir "$T/rstate3" --work-root "$T/rstate3-work" \
    --find-links "$T/wheels" >"$T/runner4.log" 2>&1
rc=$?
ok $([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 0 || echo 1) \
    "a runtime this machine lacks: the runner stops at join"
like "$(cat "$T/runner4.log")" \
    "the session needs $MISSING; this machine has .*$RT.* \(install $MISSING or pass --python\)" \
    "its message names what is missing and what the machine has"

# A pin pip cannot meet: the runner joins; its python jobs are refused.
create_session frank --mode execute --kinds shell,python --timeout 60 \
    --memory 256 --package cugrid==0.3.0
F_OWNER=$OWNER
F_SENDER=$SENDER
start_runner "$RUNNER" "$T/rstate4" "$T/runner5.log" --find-links "$T/wheels"
wait_log "$T/runner5.log" 'joined session' "$RUNNER_PID"
ok $? "a session whose pin cannot be met: the runner still joins"
like "$(cat "$T/runner5.log")" 'pip could not install cugrid==0\.3\.0' \
    "the log names the package"
INV=$F_OWNER ax frank session approve box --label cpu >/dev/null
INV=$F_SENDER ax gina --json run --timeout 60s --on box "$T/job.py" \
    >"$T/r6.json" 2>&1
like "$(json_get "$T/r6.json" 'j["status"], j["reason"]')" \
    "^\('refused', 'not_allowed'\)\$" "its python jobs are refused not_allowed"
like "$(json_get "$T/r6.json" 'j["stderr"]')" 'cugrid==0\.3\.0.*: .+' \
    "the refusal names the package and pip's last error line"
ls -d "$T"/rstate4/cache/venv-* >/dev/null 2>&1
ok $([ $? -ne 0 ] && echo 0 || echo 1) "no venv is kept for it"
stop_runner

# A second session with the same allowlist, on the first's state dir once
# that session has ended (a state dir serves one live session; its cache of
# venvs outlives it): the same venv, not rebuilt.
MT1=$(stat -c '%Y %i' "$VENV")
INV=$A_OWNER ax alice session close >/dev/null
ok $? "the first session is closed"
create_session carol --mode execute --kinds python --timeout 120 \
    --memory 512 --runtime "$RT" --package cugrid==0.1.0
ok $? "a second session with the same allowlist"
B_OWNER=$OWNER
B_SENDER=$SENDER
# A half-made venv a crashed runner left, older than any build takes.
mkdir -p "$T/rstate/cache/tmp-venv-stale/bin" &&
    touch -d '-1 day' "$T/rstate/cache/tmp-venv-stale"
start_runner "$RUNNER" "$T/rstate" "$T/runner2.log" --find-links "$T/wheels"
ready "$T/runner2.log"
ok $? "the runner joined the second session"
[ ! -e "$T/rstate/cache/tmp-venv-stale" ]
ok $? "a half-made venv left by an earlier run is removed"
like "$(cat "$T/runner2.log")" "python: reusing $(basename "$VENV")" \
    "the venv is reused"
grep -q 'making venv-' "$T/runner2.log"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "and not made again"
is "$(stat -c '%Y %i' "$VENV")" "$MT1" "its folder is the same (mtime, inode)"
INV=$B_OWNER ax carol session approve box --label cpu >/dev/null
INV=$B_SENDER ax dave --json run --timeout 120s --on box --require cugrid \
    "$T/job.py" >"$T/r5.json" 2>&1
like "$(json_get "$T/r5.json" 'j["stdout"]')" '^cugrid 0\.1\.0$' \
    "a job of the second session gets the pinned version"
stop_runner

done_testing
