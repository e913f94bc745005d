#!/bin/sh
# machine.sh: "airlox machine add" end to end with the real relay, runner
# and client: the one printed join command is run as printed, the runner's
# signed verify report is shown, exactly its key is approved, jobs run by
# machine name; off a terminal without --yes nothing is approved; a runner
# whose report has a FAIL is not approved without --accept-weaker; machine
# ls, invite and rm.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
start_relay --allow-no-expiry || skip_all "the relay did not start"
export XDG_CACHE_HOME=$T/cache PATH=${AIRLOX%/*}:${RUNNERD%/*}:$PATH

# add NAME OUT [ARGS...]: machine add in the background until it printed
# the join command; JOIN is that command.
add() {
	n=$1 o=$2
	shift 2
	airlox machine add "$n" "$@" >"$o" 2>&1 </dev/null &
	ADD_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $ADD_PID"
	wait_for grep -q 'runner join' "$o"
	JOIN=$(grep -m 1 -o 'airlox runner join.*' "$o")
}
join() {	# join STATE [EXTRA...]: run the printed command
	st=$1
	shift
	mkdir -p "$T/$st-work"
	AIRLOX_STATE_DIR=$T/$st AIRLOX_WORK_ROOT=$T/$st-work sh -c "exec $JOIN $*" \
	    >>"$T/$st.log" 2>&1 &
	EXTRA_PIDS="$EXTRA_PIDS $!"
}

add box "$T/add.out" --yes
ok $? "machine add prints the one join command"
like "$JOIN" '^airlox runner join --code [0-9]+-[a-z]+-[a-z]+ .*--name box .*--workspace' \
    "the command names the code, the machine and the workspace"
join rs1
wait "$ADD_PID"
is $? 0 "machine add approves the runner that joined"
like "$(cat "$T/add.out")" 'verify report of runner box: [0-9]+ passed, 0 failed' \
    "the runner's signed verify report is shown before approval"
like "$(cat "$T/add.out")" 'runner box was started without --network' \
    "the owner sees that the runner does not give jobs the host's network"
airlox run --timeout 60s --on box -- echo on the box >"$T/run.out" 2>&1
ok $? "airlox run --on box uses the machine kept here"
like "$(cat "$T/run.out")" '^on the box$' "the job ran on the machine"
airlox --json machine ls >"$T/ls.json"
ok $? "machine ls"
is "$(json_get "$T/ls.json" '[r["approved"] for r in j["runners"]]')" \
    "[True]" "machine ls shows the approved runner"
like "$(airlox machine invite box)" '^http://127\.0\.0\.1:[0-9]+/s/.*#1\.sender\.' \
    "machine invite prints the sender invite"
is "$(stat -c %a "$XDG_CACHE_HOME/airlox/machines/box")" 700 \
    "the machine's folder is 0700"
is "$(stat -c %a "$XDG_CACHE_HOME/airlox/machines/box/owner")" 600 \
    "its invites are 0600"

# Egress: a session that allows one name; a denied name is recorded by the
# runner's proxy and reaches the owner as a signed report.
add net "$T/net.out" --yes --allow allowed.test
join rs4
wait "$ADD_PID"
is $? 0 "a machine whose jobs may reach one name"
airlox --json run --timeout 60s --on net -- sh -c \
    'curl -s -m 10 -o /dev/null https://denied.test/; echo curl=$?' \
    >"$T/net.json" 2>&1
like "$(json_get "$T/net.json" 'j["stdout"]')" 'curl=[1-9]' \
    "a job cannot reach a name the session does not allow"
is "$(json_get "$T/net.json" 'j["env"].get("sandbox")')" local "(local sandbox)"
denied_listed() { airlox machine denied net 2>/dev/null | grep -q denied.test; }
wait_for denied_listed
like "$(airlox machine denied net)" 'denied\.test' \
    "machine denied lists the refused name"

# Off a terminal, without --yes: nothing is approved.
add nope "$T/nope.out"
join rs2
wait "$ADD_PID"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "off a terminal without --yes: refused"
like "$(cat "$T/nope.out")" 'not at a terminal' "and it says why"
is "$(airlox --json machine ls | python3 -c 'import json,sys
for l in sys.stdin:
    j = json.loads(l)
    if j["machine"] == "nope": print([r["approved"] for r in j["runners"]])')" \
    "[False]" "the runner of that machine stays unapproved"

# A runner that cannot prove its boundary is not approved.
add weak "$T/weak.out" --sandbox process --yes
join rs3 --allow-weaker-sandbox
wait "$ADD_PID"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "a report with a FAIL: not approved"
like "$(cat "$T/weak.out")" '1 failed' "the report's FAIL is shown"
like "$(cat "$T/weak.out")" 'FAIL verify: the probes cannot run in this sandbox' \
    "with the probe's reason"
like "$(cat "$T/weak.out")" 'Next: fix what each FAIL names.*--accept-weaker' \
    "and the next step"

# Nor by the other ways to approve: machine approve and session approve
# show the same report and refuse its FAIL without --accept-weaker.
airlox machine approve weak --yes >"$T/ap1.out" 2>&1
is $? 1 "machine approve: a report with a FAIL is refused (exit 1, as machine add)"
like "$(cat "$T/ap1.out")" 'verify report of runner weak: [0-9]+ passed, 1 failed' \
    "machine approve shows the report"
like "$(cat "$T/ap1.out")" 'FAIL verify: the probes cannot run' \
    "with each FAIL and its reason"
like "$(cat "$T/ap1.out")" 'accept-weaker' "and names the option that approves it anyway"
WOWN=$(cat "$XDG_CACHE_HOME/airlox/machines/weak/owner")
AIRLOX_INVITE=$WOWN airlox session approve weak >"$T/ap2.out" 2>&1
is $? 1 "session approve: a report with a FAIL is refused (exit 1)"
like "$(cat "$T/ap2.out")" 'verify report of runner weak: [0-9]+ passed, 1 failed' \
    "session approve shows the report"
is "$(airlox --json machine ls | python3 -c 'import json,sys
for l in sys.stdin:
    j = json.loads(l)
    if j["machine"] == "weak": print([r["approved"] for r in j["runners"]])')" \
    "[False]" "the weak runner is still not approved"
AIRLOX_INVITE=$WOWN airlox session approve weak --accept-weaker >"$T/ap3.out" 2>&1
ok $? "session approve --accept-weaker approves it"
like "$(cat "$T/ap3.out")" 'FAIL verify: ' "having shown the FAIL"
AIRLOX_INVITE=$WOWN airlox session approve weak --remove >/dev/null 2>&1
ok $? "session approve --remove needs no report"
airlox machine approve weak --yes --accept-weaker >"$T/ap4.out" 2>&1
ok $? "machine approve --accept-weaker approves it"
like "$(cat "$T/ap4.out")" 'approved runner weak' "and says so"

# --image means the docker sandbox: the join command says so; an image
# with another sandbox, or docker without an image, is a usage error.
add img "$T/img.out" --image airlox-test:img --yes
like "$JOIN" '--sandbox docker --image airlox-test:img ' \
    "machine add --image prints a join command for the docker sandbox"
kill "$ADD_PID" 2>/dev/null; wait "$ADD_PID" 2>/dev/null
airlox machine rm img >/dev/null 2>&1
airlox machine add img2 --image airlox-test:img --sandbox local >"$T/img2.out" 2>&1
is $? 2 "--image with --sandbox local: usage error"
like "$(cat "$T/img2.out")" 'cannot go with --sandbox local' "naming both"
airlox machine add img3 --sandbox docker >"$T/img3.out" 2>&1
is $? 2 "--sandbox docker without --image: usage error"
like "$(cat "$T/img3.out")" 'needs --image' "naming what is missing"

# A session that gives jobs the host's network, and a runner started
# without --network: it refuses at join, naming the flag.
add fullnet "$T/fullnet.out" --network --yes
like "$JOIN" ' --network' "machine add --network: the join command has --network"
NOFLAG=$(printf '%s\n' "$JOIN" | sed 's/ --network//')
mkdir -p "$T/rs5-work"
AIRLOX_STATE_DIR=$T/rs5 AIRLOX_WORK_ROOT=$T/rs5-work timeout 120 sh -c \
    "exec $NOFLAG" >"$T/rs5.log" 2>&1
rc=$?
ok $([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 0 || echo 1) \
    "a runner without --network refuses that session at join ($rc)"
like "$(cat "$T/rs5.log")" 'gives its jobs the host.s network .*started without --network: start it with --network' \
    "naming the flag"
lacks "$(cat "$T/rs5.log")" "verify:" "before it verified or announced anything"
kill "$ADD_PID" 2>/dev/null; wait "$ADD_PID" 2>/dev/null

airlox machine rm box >/dev/null
ok $? "machine rm"
[ ! -e "$XDG_CACHE_HOME/airlox/machines/box" ]
ok $? "the machine's invites are gone"
airlox run --timeout 10s --on box -- true >/dev/null 2>"$T/rm.err"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "a removed machine runs nothing"
like "$(cat "$T/rm.err")" 'no machine named box; the machines kept here: [a-z]' \
    "and the message names it and lists the machines kept here"
done_testing
