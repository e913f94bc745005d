#!/bin/sh
# runner-e2e.sh: the real relay, the real runner with its real sandbox, and
# the real client: a runner joins, waits for approval, runs jobs, and its
# signed results come back verified: exit code, stdout, stderr, files out,
# duration, peak memory, path redaction; refusals; a busy runner; a
# timeout; a relay restart mid-job delivers the result once; line breaks in a
# job's meta do not split the owner's --json output.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"

start_fixed_relay || skip_all "the relay did not start"
has_endpoint POST /v1/sessions/x/jobs/y/claim || \
    skip_all "relay lacks POST /v1/sessions/{sid}/jobs/{id}/claim"

create_session alice --mode execute --kinds shell,python --timeout 20 \
    --memory 256
ok $? "an execute session"

start_runner() {
	AIRLOX_INVITE="$RUNNER" MY_VISIBLE=shown GITHUB_TOKEN=canary-token \
	    RUNNER_CANARY=canary-env "$RUNNERD" --name box --labels cpu \
	    --env-allow MY_VISIBLE,GITHUB_TOKEN \
	    --state-dir "$T/rstate" --work-root "$T/rwork" "$@" \
	    >>"$T/runner.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
}
mkdir -p "$T/rwork"
start_runner
wait_for joined box
ok $? "the runner joined the session"
# Its log says where its state is, and the limits the session's jobs get
# (20 s, 256 MiB), not the defaults (600 s, 512 MiB).
wait_for grep -q 'limits of session' "$T/runner.log"
like "$(cat "$T/runner.log")" "state in $T/rstate " "the runner says where its state is"
like "$(grep 'limits of session' "$T/runner.log")" 'wall clock: 20000 ms.*256 MiB' \
    "and the session's limits"
lacks "$(cat "$T/runner.log")" "600000 ms" "not the default ones"

# Not approved yet: a sender cannot address it (no wrap can be made).
INV=$SENDER ax bob run --timeout 30s --on box -- true >"$T/un.out" 2>&1
ok $([ $? -ne 0 ] && echo 0 || echo 1) "an unapproved runner gets no job"

INV=$OWNER ax alice session approve box --label cpu >/dev/null
ok $? "the owner approves exactly the runner's key"

# Output without a last newline: the footer starts on a line of its own.
INV=$SENDER ax bob run --timeout 60s --on box -- printf c >"$T/nonl.out" 2>&1
like "$(cat "$T/nonl.out")" '^c$' "a job's output without a last newline"
like "$(cat "$T/nonl.out")" '^── completed' "the footer starts on a line of its own"
# So do result's and job logs' footers.
INV=$SENDER ax bob --json run --timeout 60s --on box --no-wait -- printf d \
    >"$T/nonl.json"
NONL=$(json_get "$T/nonl.json" 'j["job"]')
INV=$SENDER ax bob result --wait 60s -- "$NONL" >"$T/nonl-r.out" 2>&1
like "$(cat "$T/nonl-r.out")" '^d$' "result: the output without a last newline"
like "$(cat "$T/nonl-r.out")" '^── completed' "  and the footer on a line of its own"
INV=$SENDER ax bob job logs -- "$NONL" >"$T/nonl-l.out" 2>&1
like "$(cat "$T/nonl-l.out")" '^d$' "job logs: the output without a last newline"
like "$(cat "$T/nonl-l.out")" '^── completed' "  and the footer on a line of its own"

INV=$SENDER ax bob run --timeout 60s --on box -- sh -c \
    'echo hello; echo oops >&2; pwd; echo "$AIRLOX_OUT"; exit 3' \
    >"$T/r1.out" 2>"$T/r1.err"
is $? 3 "airlox run exits with the job's exit code"
like "$(cat "$T/r1.out")" '^hello$' "stdout streamed back"
like "$(cat "$T/r1.err")" 'oops' "stderr streamed back"
like "$(cat "$T/r1.out")" '^\$WORK$' "the work folder is redacted to \$WORK"
like "$(cat "$T/r1.out")" '^\$AIRLOX_OUT$' "the out folder is redacted"
like "$(cat "$T/r1.err")" 'completed · exit 3 .* signed by runner box' \
    "the footer after the signature checks"

INV=$SENDER ax bob run --timeout 60s --on box -- env >"$T/env.out" 2>&1
like "$(cat "$T/env.out")" '^MY_VISIBLE=shown$' \
    "a variable the operator allowed reaches the job"
if grep -q 'canary' "$T/env.out"; then
	ok 1 "no credential or other runner variable reaches the job"
else
	ok 0 "no credential or other runner variable reaches the job"
fi
like "$(cat "$T/runner.log")" 'env-allow: .*GITHUB_TOKEN.* never passed' \
    "the runner warns about a credential name in its allow list"

INV=$SENDER ax bob --json run --timeout 60s --on box -- sh -c \
    'echo one > "$AIRLOX_OUT/a.txt"; echo two > "$AIRLOX_OUT/b.txt"; head -c 3000000 /dev/zero | cat > /dev/null' \
    >"$T/r2.json"
ok $? "a job with files out"
json_lines "$T/r2.json"
ok $? "run --json parses"
is "$(json_get "$T/r2.json" 'j["status"]')" completed "status completed"
is "$(json_get "$T/r2.json" 'sorted(j["files"])')" "['a.txt', 'b.txt']" \
    "the files from \$AIRLOX_OUT are listed"
is "$(json_get "$T/r2.json" 'j["peak_memory"] > 0')" True "peak memory reported"
is "$(json_get "$T/r2.json" 'j["duration_ms"] >= 0')" True "duration reported"
is "$(json_get "$T/r2.json" 'j["env"]["sandbox"]')" local "env names the sandbox"
is "$(json_get "$T/r2.json" 'j["verified"]')" True "verified by the client"

printf 'import sys\nprint("py", sys.version_info[0])\n' >"$T/job.py"
INV=$SENDER ax bob run --timeout 60s --on pool/cpu "$T/job.py" >"$T/r3.out" 2>&1
ok $? "a Python job on a label"
like "$(cat "$T/r3.out")" '^py 3$' "python3 ran the file"

# Jobs an honest client would not make: the runner refuses them itself,
# with a signed result naming the reason.
CRAFT=$top_builddir/tests/runnerd/craft-job
craft() {
	XDG_CACHE_HOME="$T/c-crafter" AIRLOX_INVITE="$SENDER" "$CRAFT" "$@"
}
refused() {	# refused KIND REASON
	set -- "$1" "$2" "$(craft "$1" box)"
	job=${3%% *}
	# The owner reads it: the crafter sealed the job to the owner and
	# the runners only (a job's result is for the job's readers).
	INV=$OWNER ax alice --json result --wait 20s -- "$job" >"$T/craft.json" \
	    2>&1
	is "$(json_get "$T/craft.json" 'j.get("status"), j.get("reason")')" \
	    "('refused', '$2')" "a crafted job ($1) is refused: $2"
}
refused expired expired
refused limits not_allowed
r=$(craft replay box)
# The relay refuses the second post: the id exists (or, when the runner
# already claimed the first, the named runner is busy).
like "${r#* }" '^(exists|runner_busy)$' \
    "a job id posted twice: the relay refuses the second"
wait_for grep -q "job ${r%% *} .*accepted" "$T/runner.log"
is "$(grep -c "job ${r%% *} .*accepted" "$T/runner.log")" 1 \
    "and the runner ran it once"

# The runner is busy until the replayed job's result: wait for it.
INV=$OWNER ax alice --json result --wait 30s -- "${r%% *}" >/dev/null 2>&1

# A job whose meta has line breaks between its tokens and a record-like
# object on a line of its own: each line of the owner's --json output is
# one whole record, and none of them is that object.
r=$(craft lines box)
like "${r#* }" '^posted$' "a job with line breaks in its meta is posted"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/lines.json" 2>&1
got=$(python3 - "$T/lines.json" "${r%% *}" <<'PY'
import json, sys
bad, seen = [], False
for line in open(sys.argv[1]):
    try:
        j = json.loads(line)
    except ValueError:
        bad.append(line[:60])
        continue
    if j.get("text") == "forged":
        bad.append("the forged record")
    if j.get("id") == sys.argv[2] and "note" in j.get("meta", {}):
        seen = True
print("clean" if seen and not bad else "seen=%s bad=%r" % (seen, bad))
PY
)
is "$got" clean "--json output: the job with its meta on one line, nothing forged"

INV=$OBSERVER ax carol run --timeout 30s --on box -- true >"$T/obs.out" 2>&1
ok $([ $? -ne 0 ] && echo 0 || echo 1) "an observer cannot run jobs"

INV=$SENDER ax bob --json run --timeout 120s --on box -- sleep 100 >"$T/to.json"
is $? 124 "a job over the session's timeout exits 124"
is "$(json_get "$T/to.json" 'j["status"]')" timeout "status timeout"

# logs_say JOB TEXT: job JOB's output so far holds TEXT.
logs_say() {
	INV=$SENDER ax bob job logs -- "$1" 2>/dev/null | grep -q "$2"
}

# Busy: one slot taken (by a job seen running), a second job by name is
# refused; then the first is cancelled.
INV=$SENDER ax bob --json run --timeout 60s --on box --no-wait -- sh -c \
    'echo begin; sleep 100' >"$T/long.json"
LONG=$(json_get "$T/long.json" 'j["job"]')
wait_for logs_say "$LONG" begin
INV=$SENDER ax bob --json run --timeout 60s --on box -- true >"$T/busy.json" 2>"$T/busy.err"
st=$?
like "$st $(cat "$T/busy.json" "$T/busy.err")" 'runner_busy' \
    "a second job by name while the slot is taken: runner_busy"
INV=$SENDER ax bob job cancel -- "$LONG" >/dev/null
INV=$SENDER ax bob job logs --follow --wait 60s -- "$LONG" >/dev/null 2>&1

# A job outlives its sender: logs from the start, then cancel. Its sleep
# lasts 30.PID seconds, a number no other run of this test on the machine
# uses: the check below finds this job's processes and no one else's.
NAP=30.$$
INV=$SENDER ax bob --json run --timeout 60s --on box --no-wait -- sh -c \
    'echo begin; sleep "$0"; echo never' "$NAP" >"$T/bg.json"
BG=$(json_get "$T/bg.json" 'j["job"]')
INV=$SENDER ax bob --json job ls >"$T/ls.json"
ok $? "job ls"
like "$(cat "$T/ls.json")" "\"job\":\"$BG\"" "job ls lists the job"
wait_for logs_say "$BG" begin
none_left() { ! pgrep -f "(sleep|echo never) $NAP\$" >/dev/null; }
! none_left
ok $? "the job's processes are seen, by their own number"
INV=$SENDER ax bob job cancel -- "$BG" >/dev/null
ok $? "job cancel posts a signed cancel"
INV=$SENDER ax bob job logs --follow --wait 30s -- "$BG" >"$T/logs.out" \
    2>"$T/logs.err"
is $? 121 "job logs --follow ends with the job: cancelled (121)"
like "$(cat "$T/logs.out")" '^begin$' "job logs shows the output from the start"
like "$(cat "$T/logs.err")" 'cancelled .* signed by runner box' \
    "and the verified footer"
# (The kill of its cgroup completes in the kernel's time, not ours.)
wait_for none_left
ok $? "nothing of the cancelled job is left"

# The relay is killed during a job and restarted: the result arrives once.
# The job ends when the file go appears in its workspace, made here once
# the relay is back.
INV=$SENDER ax bob --json run --on box --no-wait -- sh -c \
    'echo begin; while [ ! -e go ]; do sleep 0.1; done; echo late' \
    >"$T/nw.json"
JOB=$(json_get "$T/nw.json" 'j["job"]')
wait_for logs_say "$JOB" begin
kill -9 "$RELAY_PID"
wait "$RELAY_PID" 2>/dev/null
start_fixed_relay
ok $? "the relay restarted on its port"
touch "$T/rwork/job-$JOB/work/go"
ok $? "the job is still running (its workspace is there)"
INV=$SENDER ax bob --json result --wait 120s -- "$JOB" >"$T/late.json" 2>&1
ok $? "the result arrives after the restart"
like "$(json_get "$T/late.json" 'j["stdout"]')" 'late' "with its output"
n=$(INV=$OWNER ax alice --json watch --all --timeout 2 2>/dev/null | \
    python3 -c 'import json,sys
print(sum(1 for l in sys.stdin if l.strip() and json.loads(l).get("kind") == "result" and json.loads(l).get("reply_to") == sys.argv[1]))' "$JOB")
is "$n" 1 "exactly one result for the job"

kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
st=$?
is $st 0 "SIGTERM: the runner exits 0"
[ $st -eq 0 ] || sed 's/^/#   runner: /' "$T/runner.log" | tail -40
grep -q '"outcome":"refused"\|"outcome":"accepted"' "$T/rstate/audit.log"
ok $? "the audit log records decisions"
if grep -q 'hello\|oops' "$T/rstate/audit.log"; then
	ok 1 "the audit log holds no job content"
else
	ok 0 "the audit log holds no job content"
fi
done_testing
