#!/bin/sh
# job-readers.sh: a job's progress and result (its output, its exit code,
# the files it names) are sealed to the job's own readers: the owner, the
# job's sender and the runner it was sent to. An observer and a key that
# holds only the runner invite (joined, never approved) follow the same log
# and see that the items exist, but read nothing of them; the owner and the
# sender read all of it. With the real relay, runner and client.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session"

runner_up box
ok $? "a runner joined and was approved"

# A key that holds the runner invite joins (and is never approved), and an
# observer joins, before the job.
INV=$RUNNER ax spy --json watch --all --timeout 1s >/dev/null 2>&1
INV=$OBSERVER ax carol --json watch --all --timeout 1s >/dev/null 2>&1

INV=$SENDER ax bob --json run --timeout 60s --on box -- sh -c \
    'echo SECRET-OUT-$((6*7)); echo SECRET-ERR-$((6*7)) >&2; exit 3' \
    >"$T/run.json" 2>"$T/run.err"
is $? 3 "the sender's job ran (exit 3)"
JOB=$(json_get "$T/run.json" 'j["job"]')

# Everyone follows the whole log.
INV=$OBSERVER ax carol --json watch --all --timeout 3s >"$T/obs.json" 2>&1
INV=$RUNNER ax spy --json watch --all --timeout 3s >"$T/spy.json" 2>&1
INV=$OWNER ax alice --json watch --all --timeout 3s >"$T/own.json" 2>&1

replies() {	# replies FILE: "kind:readable" for each reply to $JOB
	python3 -c 'import json, sys
out = []
for l in open(sys.argv[1]):
    try:
        j = json.loads(l)
    except ValueError:
        continue
    if j.get("reply_to") == sys.argv[2]:
        out.append("%s:%s" % (j["kind"], "no" if "unreadable" in j else "yes"))
print(" ".join(sorted(set(out))))' "$1" "$JOB"
}
is "$(replies "$T/obs.json")" "progress:no result:no" \
    "the observer sees the job's progress and result, and reads neither"
is "$(replies "$T/spy.json")" "progress:no result:no" \
    "an unapproved key with the runner invite reads neither"
is "$(replies "$T/own.json")" "progress:yes result:yes" \
    "the owner reads both"
for who in obs spy; do
	if grep -q 'SECRET-' "$T/$who.json"; then
		ok 1 "$who: no output, no command in what it read"
	else
		ok 0 "$who: no output, no command in what it read"
	fi
done

INV=$OWNER ax alice --json result "$JOB" >"$T/own-result.json" 2>&1
is "$(json_get "$T/own-result.json" 'j["status"], j["exit_code"], j["stdout"]')" \
    "('completed', 3, 'SECRET-OUT-42\\n')" "the owner reads the result and its output"
INV=$SENDER ax bob --json result "$JOB" >"$T/snd-result.json" 2>&1
is "$(json_get "$T/snd-result.json" 'repr(j["stderr"])')" "'SECRET-ERR-42\\n'" \
    "the sender reads it too"
INV=$OBSERVER ax carol --json result "$JOB" >"$T/obs-result.json" 2>&1
rc=$?
[ $rc -ne 0 ] && ! grep -q 'SECRET-' "$T/obs-result.json"
ok $? "airlox result as the observer: refused, nothing shown (exit $rc)"
done_testing
