#!/bin/sh
# pool.sh: a pool of two runners under one label with the real relay,
# runners and client. "machine add" approves the first runner with label
# gpu, a second runner joins with the machine's runner invite and
# "machine approve --on pool/gpu" approves it; jobs posted with --no-wait
# to pool/gpu run on both: each runner has one slot and every job holds it
# until the test lets it finish, so the first two jobs go one to each
# runner and the signed results name both. Jobs posted while both slots
# are taken run when one frees (each runner kept them and claims them
# then). Nothing depends on how fast the machine is: a job waits in its
# workspace (bound from the runner's work root) for a file the test makes.
#
# "job ls" explains each way a job waits: every slot of the pool busy
# (all_busy); an approved runner that never announced itself, so none is
# online (no_runner); and, once a new runner of that name is online but
# not approved, that runner by key with the command that approves it
# (not_approved).
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
start_relay --allow-no-expiry || skip_all "the relay did not start"
export XDG_CACHE_HOME=$T/cache PATH=${AIRLOX%/*}:${RUNNERD%/*}:$PATH
NJOBS=4

airlox machine add pool --labels gpu --yes >"$T/add.out" 2>&1 </dev/null &
ADD_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $ADD_PID"
wait_for grep -q 'runner join' "$T/add.out"
JOIN=$(grep -m 1 -o 'airlox runner join.*' "$T/add.out")
like "$JOIN" '--labels gpu' "the join command carries the label"
mkdir -p "$T/r1-work"
AIRLOX_STATE_DIR=$T/r1 AIRLOX_WORK_ROOT=$T/r1-work sh -c "exec $JOIN" \
    >>"$T/r1.log" 2>&1 &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait "$ADD_PID"
is $? 0 "machine add approves the first runner"

# The second box: the machine's runner invite, its own name and state.
RINV=$XDG_CACHE_HOME/airlox/machines/pool/runner
[ -s "$RINV" ]
ok $? "the machine keeps its runner invite"
mkdir -p "$T/r2-work"
"$RUNNERD" --invite-file "$RINV" --name box2 --labels gpu --state-dir "$T/r2" \
    --work-root "$T/r2-work" >>"$T/r2.log" 2>&1 &
R2=$!
EXTRA_PIDS="$EXTRA_PIDS $R2"
waiting_runner() {
	airlox --json machine ls | python3 -c 'import json,sys
for l in sys.stdin:
    j = json.loads(l)
    if j["machine"] == "pool" and len(j["runners"]) == 2: sys.exit(0)
sys.exit(1)'
}
wait_for waiting_runner
ok $? "the second runner joined the machine's session"
airlox machine approve pool --on pool/gpu --yes >"$T/approve.out" 2>&1
ok $? "machine approve --on pool/gpu"
like "$(cat "$T/approve.out")" '^approved runner box2 .* on pool$' \
    "it approved the second runner"
is "$(airlox --json machine ls | python3 -c 'import json,sys
for l in sys.stdin:
    j = json.loads(l)
    if j["machine"] == "pool":
        print(sorted(r["approved"] for r in j["runners"]))')" "[True, True]" \
    "machine ls shows both runners approved"
# The second runner takes jobs once it has read its approval.
wait_for grep -q 'approved by the owner' "$T/r2.log"
ok $? "the second runner saw its approval"

: >"$T/ids"
i=0
while [ $i -lt $NJOBS ]; do
	airlox run --on pool/gpu --no-wait --timeout 120s -- \
	    sh -c "touch started-$i; while [ ! -e go-$i ]; do sleep 0.1; done; echo job-$i" \
	    >>"$T/ids" 2>>"$T/run.err"
	i=$((i + 1))
done
# release N: once job N runs, let it finish (the file it waits for, beside
# the one it made in its workspace).
started() {
	find "$T/r1-work" "$T/r2-work" -name "started-$1" 2>/dev/null | grep -q .
}
release() {
	wait_for started "$1" || return 1
	for f in $(find "$T/r1-work" "$T/r2-work" -name "started-$1"); do
		touch "${f%/*}/go-$1"
	done
}
is "$(grep -c . "$T/ids")" $NJOBS "$NJOBS jobs posted to pool/gpu with --no-wait"

# job ls while the first two run: the others wait for a free slot.
# jl ID KEY: a member of job ID's line of "job ls --json --on pool".
jls() {
	airlox --json job ls --on pool >"$T/jobs.json" 2>>"$T/jobs.err"
}
jl() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("job") == sys.argv[2]: print(j.get(sys.argv[3], ""))' \
	    "$T/jobs.json" "$1" "$2"
}
two_claimed() {
	jls && [ "$(grep -c '"state":"claimed"' "$T/jobs.json")" -eq 2 ]
}
set -- $(cat "$T/ids")
wait_for two_claimed
ok $? "job ls: two jobs claimed"
is "$(python3 -c 'import json,sys
print(len({j["claimed_by"] for j in map(json.loads, open(sys.argv[1]))
    if j.get("state") == "claimed"}))' "$T/jobs.json")" 2 "one by each runner"
is "$(jl "$3" state) $(jl "$3" why) $(jl "$4" why)" "waiting all_busy all_busy" \
    "job ls: the others wait because every slot is busy"
is "$(jl "$3" target)" "pool/gpu" "job ls names the job's target"
airlox job ls --on pool >"$T/jobs.txt" 2>&1
ok $? "job ls (for people) exits 0"
like "$(grep "^$3 " "$T/jobs.txt")" "waiting: every slot of the runners for pool/gpu is busy" \
    "and says so in words"

: >"$T/results"
SINV=$(cat "$XDG_CACHE_HOME/airlox/machines/pool/sender")
result() {	# result ID WAIT: the signed result as JSON, appended to results
	airlox --json result --on pool --wait "$2" -- "$1" \
	    >>"$T/results" 2>>"$T/result.err"
}
# The first two jobs: one runner takes each (the other's slot is taken).
set -- $(cat "$T/ids")
release 0
release 1
result "$1" 120s
result "$2" 120s
signers() {
	python3 -c 'import json,sys
print(" ".join(sorted({j["runner"] for j in map(json.loads, open(sys.argv[1]))
    if j.get("status") == "completed" and j.get("verified")})))' "$T/results"
}
outputs() {
	python3 -c 'import json,sys
print(" ".join(sorted(j["stdout"].strip() for j in map(json.loads, open(sys.argv[1]))
    if j.get("status") == "completed" and j.get("verified"))))' "$T/results"
}
is "$(outputs)" "job-0 job-1" "the first two jobs ran, each with its own output"
is "$(signers)" "box2 pool" "both runners of the pool signed results"

# The rest were posted while both slots were taken: they run when a slot
# frees (runner-loop.c keeps label jobs seen while busy and claims them).
shift 2
release 2
release 3
for id in "$@"; do
	result "$id" 120s
done
want=$(i=0; while [ $i -lt $NJOBS ]; do printf 'job-%d ' $i; i=$((i + 1)); done)
is "$(outputs)" "${want% }" "jobs posted while the pool was busy run when a slot frees"
diag "finished: $(outputs)"

# A runner that joined and was approved, then went away before it ever
# announced itself ("spare", joined by the client with the runner
# invite): a job for it waits with no runner online.
OINV=$(cat "$XDG_CACHE_HOME/airlox/machines/pool/owner")
XDG_CACHE_HOME=$T/c-ghost AIRLOX_INVITE=$(cat "$RINV") airlox --name spare \
    session show >/dev/null 2>"$T/ghost.err"
ok $? "a runner participant named spare joins (and never announces)"
AIRLOX_INVITE=$OINV airlox session approve spare --accept-weaker \
    >/dev/null 2>>"$T/ghost.err"
ok $? "the owner approves it (it posted no verify report: --accept-weaker)"
J=$(AIRLOX_INVITE=$SINV airlox run --on spare --no-wait -- true 2>>"$T/run.err")
ok $? "a job for spare is posted"
jls
ok $? "job ls --json exits 0"
is "$(jl "$J" state) $(jl "$J" why)" "waiting no_runner" \
    "job ls: it waits because no runner for spare is online"
like "$(jl "$J" explain)" '^no approved runner for spare is online$' \
    "and says so"

# The box comes back with a new key (a reinstall): online, not approved.
mkdir -p "$T/r3-work"
"$RUNNERD" --invite-file "$RINV" --name spare --state-dir "$T/r3" \
    --work-root "$T/r3-work" >>"$T/r3.log" 2>&1 &
EXTRA_PIDS="$EXTRA_PIDS $!"
not_approved() {
	jls && [ "$(jl "$J" why)" = not_approved ]
}
wait_for not_approved
ok $? "job ls: it waits because the runner for spare is not approved"
R3=$(grep -o 'with key [A-Za-z0-9_-]*' "$T/r3.log" | head -n 1 | cut -d' ' -f3)
is "$(jl "$J" runner)" "$R3" "it names the new runner's key"
like "$(jl "$J" explain)" \
    "^runner spare \\(key $R3\\) for spare is online but not approved \\(airlox machine approve pool\\)$" \
    "and the command that approves it"

if [ $tap_failed -ne 0 ]; then
	for f in results run.err result.err jobs.err ghost.err r1.log r2.log r3.log; do
		echo "# $f:"
		sed 's/^/#   /' "$T/$f" | tail -15
	done
fi
done_testing
