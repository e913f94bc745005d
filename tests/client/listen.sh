#!/bin/sh
# listen.sh: listen --once wakes only on what concerns the participant;
# --exec runs once per batch with item ids only (never text) and the
# documented environment; --from owner ignores others; --max-hops stops two
# --exec agents answering each other; --run-timeout kills a command and its
# children; --agent runs a fake claude or codex with the argv the client
# builds (claude -p PROMPT [--resume ID], codex exec [resume ID] PROMPT),
# ids in the prompt and never the text; send --to NAME resolves from the
# verified participants without reading the log, and refuses an unknown
# or ambiguous name.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
has_endpoint GET /v1/sessions/x/log || skip_all "relay lacks GET /v1/sessions/{sid}/log"

create_session alice || skip_all "session create failed"
# Everyone joins first (listening starts from one's join).
INV=$OWNER ax alice session show --kind person >/dev/null
INV=$SENDER ax bob session show --kind agent >/dev/null
INV=$SENDER ax carol session show --kind agent >/dev/null

# ids of the items of a --json stream file, in order.
ids() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if "id" in j: print(j["id"])' "$1"
}
texts() {
	python3 -c 'import json,sys
print(" | ".join(json.loads(l).get("text", "") for l in open(sys.argv[1]) if l.strip()))' "$1"
}

# --once in the background wakes on the message addressed to bob only.
AIRLOX_INVITE=$SENDER "$AX" bob --json listen --once --timeout 600 >"$T/l1.json" 2>"$T/l1.err" &
L1=$!
EXTRA_PIDS="$EXTRA_PIDS $L1"
INV=$SENDER ax carol send text "to everyone, from carol" >/dev/null
INV=$SENDER ax carol send text --to alice "for alice" >/dev/null
INV=$SENDER ax bob send text "bob's own" >/dev/null
INV=$SENDER ax carol send text --to bob "for bob" >/dev/null
wait $L1
is $? 0 "listen --once exits 0 when something concerns bob"
json_lines "$T/l1.json"
ok $? "listen --once --json parses"
is "$(texts "$T/l1.json")" "for bob" "it printed only the message addressed to bob"

# Replies: carol answers bob's item without --to: wakes bob, not alice.
INV=$SENDER ax bob --json send text "question from bob" >"$T/q.json"
q=$(json_get "$T/q.json" 'j["id"]')
INV=$SENDER ax carol send text --reply-to "$q" "answer to bob" >/dev/null
INV=$SENDER ax bob --json listen --once --timeout 5 >"$T/l2.json"
is "$(texts "$T/l2.json")" "answer to bob" "a reply to bob's item wakes bob"
INV=$OWNER ax alice --json listen --once --timeout 2 >"$T/l3.json" 2>/dev/null
st=$?
is "$(texts "$T/l3.json" | grep -c 'answer to bob')" 0 \
    "the reply does not wake alice"
is "$(texts "$T/l3.json")" "for alice" \
    "alice got only what was hers since she joined"
is $st 0 "listen --once for alice exits 0"

# The owner's message without --to wakes everyone.
INV=$OWNER ax alice send text "all hands" >/dev/null
INV=$SENDER ax carol --json listen --once --timeout 5 >"$T/l4.json"
like "$(texts "$T/l4.json")" "all hands" "the owner's message to everyone wakes carol"
INV=$SENDER ax bob --json listen --once --timeout 5 >"$T/l5.json"
is "$(texts "$T/l5.json")" "all hands" "and bob"
INV=$SENDER ax bob listen --once --timeout 2 >/dev/null 2>&1
is $? 7 "nothing new: --timeout gives exit 7"

# --exec: one run per batch, ids only, with the environment.
cat >"$T/rec.sh" <<'SH'
#!/bin/sh
out=$1
shift
{
	echo "args $*"
	echo "n $#"
	echo "invite ${AIRLOX_INVITE:+set}"
	echo "name $AIRLOX_NAME"
	echo "cachedir $AIRLOX_CACHE_DIR"
	echo "desc $AIRLOX_DESCRIPTION"
} >>"$out-part"
echo end >>"$out-part"
mv "$out-part" "$out.$(date +%s%N)"	# whole: only now does it match run.*
SH
chmod +x "$T/rec.sh"
INV=$SENDER ax carol --json send text --to bob "secret text one" >"$T/e1.json"
INV=$SENDER ax carol --json send text --to bob "secret text two" >"$T/e2.json"
AIRLOX_INVITE=$SENDER "$AX" bob --json listen --exec "$T/rec.sh $T/run" \
    --description "test agent" >"$T/lx.json" 2>"$T/lx.err" &
LX=$!
EXTRA_PIDS="$EXTRA_PIDS $LX"
wait_for sh -c "ls $T/run.* >/dev/null 2>&1"
ok $? "--exec ran the command"
f=$(ls "$T"/run.* | head -n 1)
is "$(grep '^n ' "$f")" "n 2" "once for the batch of two items"
is "$(grep '^args ' "$f")" "args $(json_get "$T/e1.json" 'j["id"]') $(json_get "$T/e2.json" 'j["id"]')" \
    "with exactly their ids as arguments"
grep -q 'secret text' "$f"
is $? 1 "never the message text"
is "$(grep '^invite' "$f")" "invite set" "AIRLOX_INVITE is set"
is "$(grep '^name' "$f")" "name bob" "AIRLOX_NAME is the participant's name"
like "$(grep '^cachedir' "$f")" "^cachedir $T/c-bob/airlox$" "AIRLOX_CACHE_DIR"
is "$(grep '^desc' "$f")" "desc test agent" "AIRLOX_DESCRIPTION"
INV=$SENDER ax carol send text --to bob "third" >/dev/null
wait_for sh -c "[ \$(ls $T/run.* | wc -l) -ge 2 ]"
ok $? "a later item is a new batch"
kill $LX
wait $LX 2>/dev/null
json_lines "$T/lx.json"
ok $? "listen --exec --json parses"

# --from owner: carol's message to bob is ignored, alice's is not.
rm -f "$T"/run.*
INV=$SENDER ax carol send text --to bob "from carol, ignored" >/dev/null
INV=$OWNER ax alice --json send text --to bob "from the owner" >"$T/f1.json"
AIRLOX_INVITE=$SENDER "$AX" bob listen --exec "$T/rec.sh $T/run" --from owner \
    >/dev/null 2>&1 &
LF=$!
EXTRA_PIDS="$EXTRA_PIDS $LF"
wait_for sh -c "ls $T/run.* >/dev/null 2>&1"
ok $? "--from owner ran the command"
is "$(grep '^args' "$(ls "$T"/run.* | head -n 1)")" \
    "args $(json_get "$T/f1.json" 'j["id"]')" "--from owner: only the owner's item"
kill $LF
wait $LF 2>/dev/null

# --run-timeout kills the whole process group.
cat >"$T/hang.sh" <<SH
#!/bin/sh
sleep 300 &
echo \$! >"$T/child.pid"
sleep 300
SH
chmod +x "$T/hang.sh"
INV=$SENDER ax carol send text --to bob "hang please" >/dev/null
AIRLOX_INVITE=$SENDER "$AX" bob --json listen --exec "$T/hang.sh" --run-timeout 2 \
    >"$T/lt.json" 2>/dev/null &
LT=$!
EXTRA_PIDS="$EXTRA_PIDS $LT"
wait_for test -s "$T/child.pid"
ok $? "the hanging command started a child"
child=$(cat "$T/child.pid")
wait_for sh -c "grep -q timed_out $T/lt.json"
ok $? "listen reports the run timed out"
is "$(json_get "$T/lt.json" 'j["timed_out"]')" True "timed_out is true"
wait_for sh -c "! kill -0 $child 2>/dev/null"
ok $? "the command's child was killed too"
kill $LT
wait $LT 2>/dev/null

# --agent: a fake claude on PATH records its arguments.
mkdir "$T/bin"
cat >"$T/bin/claude" <<SH
#!/bin/sh
for a in "\$@"; do echo "arg:\$a"; done >"$T/claude.tmp"
echo "name:\$AIRLOX_NAME" >>"$T/claude.tmp"
mv "$T/claude.tmp" "$T/claude.args"
SH
chmod +x "$T/bin/claude"
INV=$SENDER ax bob listen --agent claude --fresh >/dev/null 2>&1
is $? 2 "--agent without --from is a usage error"
INV=$OWNER ax alice --json send text --to bob "agent secret" >"$T/a1.json"
AIRLOX_INVITE=$SENDER PATH="$T/bin:$PATH" "$AX" bob listen --agent claude --fresh \
    --from owner >/dev/null 2>"$T/la.err" &
LA=$!
EXTRA_PIDS="$EXTRA_PIDS $LA"
wait_for grep -qF -- "$(json_get "$T/a1.json" 'j["id"]')" "$T/claude.args"
ok $? "--agent claude ran claude with the item id in its prompt"
grep -q "^arg:-p$" "$T/claude.args"
ok $? "claude -p PROMPT"
grep -q 'agent secret' "$T/claude.args"
is $? 1 "but not the text"
kill $LA
wait $LA 2>/dev/null

# The fake agents: each run writes its arguments (one per line), their
# count and its environment to a new file $T/NAME.run.N.
for agent in claude codex; do
	cat >"$T/bin/$agent" <<SH
#!/bin/sh
{
	for a in "\$@"; do echo "arg:\$a"; done
	echo "argc:\$#"
	echo "name:\$AIRLOX_NAME"
	echo "invite:\${AIRLOX_INVITE:+set}"
	echo "cachedir:\$AIRLOX_CACHE_DIR"
} >"$T/$agent.tmp"
mv "$T/$agent.tmp" "$T/$agent.run.\$(date +%s%N)"
SH
	chmod +x "$T/bin/$agent"
done
# agent_run AGENT OUT [LISTEN-OPTS...]: listen --agent AGENT --from owner
# for bob until AGENT ran once; the run's file is copied to OUT.
agent_run() {
	ag=$1 o=$2
	shift 2
	rm -f "$T/$ag".run.* "$T/agent.json"	# no stale "run" line either
	AIRLOX_INVITE=$SENDER PATH="$T/bin:$PATH" "$AX" bob --json listen \
	    --agent "$ag" --from owner "$@" >"$T/agent.json" 2>>"$T/agent.err" &
	AP=$!
	EXTRA_PIDS="$EXTRA_PIDS $AP"
	# listen reports the run once it noted where the next one resumes
	wait_for grep -q '"event":"run"' "$T/agent.json"
	st=$?
	kill $AP
	wait $AP 2>/dev/null
	cp "$(ls "$T/$ag".run.* | head -n 1)" "$o" 2>/dev/null
	return $st
}
# arg N FILE: the Nth argument of the run recorded in FILE.
arg() {
	sed -n 's/^arg://p' "$2" | sed -n "$1p"
}

# --agent codex --fresh: "codex exec PROMPT", the prompt naming the ids.
INV=$OWNER ax alice --json send text --to bob "codex secret one" >"$T/c1.json"
c1=$(json_get "$T/c1.json" 'j["id"]')
agent_run codex "$T/codex1" --fresh
ok $? "--agent codex ran codex"
is "$(grep '^argc:' "$T/codex1") $(arg 1 "$T/codex1")" "argc:2 exec" \
    "--fresh: codex exec PROMPT"
like "$(arg 2 "$T/codex1")" "^New airlox items concern you .*: $c1\\. Read them with" \
    "the prompt names the item id"
grep -q 'codex secret' "$T/codex1"
is $? 1 "never the message text"
is "$(grep -c '^arg:.*[Ss]ecret' "$T/codex1")" 0 "in no argument"
is "$(grep '^name:' "$T/codex1") $(grep '^invite:' "$T/codex1")" \
    "name:bob invite:set" "codex gets AIRLOX_NAME and AIRLOX_INVITE"
like "$(grep '^cachedir:' "$T/codex1")" "^cachedir:$T/c-bob/airlox$" \
    "and AIRLOX_CACHE_DIR"

# --resume ID: "codex exec resume ID PROMPT", with only the new item.
INV=$OWNER ax alice --json send text --to bob "codex secret two" >"$T/c2.json"
c2=$(json_get "$T/c2.json" 'j["id"]')
agent_run codex "$T/codex2" --resume 0199a213-81c0-7800-8aa1-bbab2a035a53
ok $? "--agent codex --resume ran codex"
is "$(grep '^argc:' "$T/codex2") $(arg 1 "$T/codex2") $(arg 2 "$T/codex2") $(arg 3 "$T/codex2")" \
    "argc:4 exec resume 0199a213-81c0-7800-8aa1-bbab2a035a53" \
    "--resume: codex exec resume ID PROMPT"
like "$(arg 4 "$T/codex2")" ": $c2\\. Read" "the prompt names the new item"
grep -q -- "$c1" "$T/codex2"
is $? 1 "not the item of the previous run"
grep -q 'codex secret' "$T/codex2"
is $? 1 "and never the text"

# claude with --resume: "claude -p PROMPT --resume ID".
INV=$OWNER ax alice --json send text --to bob "claude secret" >"$T/c3.json"
c3=$(json_get "$T/c3.json" 'j["id"]')
agent_run claude "$T/claude2" --resume sess_42
ok $? "--agent claude --resume ran claude"
is "$(grep '^argc:' "$T/claude2") $(arg 1 "$T/claude2") $(arg 3 "$T/claude2") $(arg 4 "$T/claude2")" \
    "argc:4 -p --resume sess_42" "claude -p PROMPT --resume ID"
like "$(arg 2 "$T/claude2")" ": $c3\\. Read" "the prompt names the item"
grep -q 'claude secret' "$T/claude2"
is $? 1 "never the text"

# A conversation id that could pass for an option is refused.
INV=$SENDER ax bob listen --agent codex --from owner --resume --yolo \
    >/dev/null 2>"$T/resume.err"
is $? 2 "--resume starting with '-' is a usage error"
like "$(cat "$T/resume.err")" "--resume: an agent conversation id" "which says why"
INV=$SENDER ax bob listen --agent codex --from owner --resume 'a b' \
    >/dev/null 2>&1
is $? 2 "--resume with a space is a usage error"
INV=$SENDER ax bob listen --exec true --fresh >/dev/null 2>&1
is $? 2 "--fresh without --agent is a usage error"

# --max-hops: two agents answering each other stop.
AIRLOX_INVITE=$SENDER "$AX" bob listen --max-hops 3 \
    --exec "$AIRLOX send text --to carol --reply-to \"\$1\" pong-bob #" \
    >/dev/null 2>&1 &
HB=$!
AIRLOX_INVITE=$SENDER "$AX" carol listen --max-hops 3 \
    --exec "$AIRLOX send text --to bob --reply-to \"\$1\" pong-carol #" \
    >/dev/null 2>&1 &
HC=$!
EXTRA_PIDS="$EXTRA_PIDS $HB $HC"
INV=$OWNER ax alice send text --to bob "start the loop" >/dev/null
pongs() {
	INV=$OWNER ax alice --json watch --all --timeout 1 2>/dev/null |
	    grep -c '"text":"pong-'
}
wait_for sh -c "[ \$(AIRLOX_INVITE='$OWNER' XDG_CACHE_HOME='$T/c-alice' '$AIRLOX' --json watch --all --timeout 1 | grep -c pong-) -ge 4 ]"
ok $? "the agents answered each other"
# Give a fifth answer time to appear (bounded by listen's own wake-up).
INV=$OWNER ax alice listen --once --timeout 4 >/dev/null 2>&1
is "$(pongs)" 4 "max-hops 3: the chain stops after 4 agent posts"
kill $HB $HC
wait $HB $HC 2>/dev/null

# send --to NAME resolves from the participants' certificates (verified
# against the manifest), not by reading the whole session log.
INV=$OWNER ax alice --json session show >"$T/show.json"
fp_of() {
	python3 -c 'import json,sys
j = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
print(" ".join(p["fp"] for p in j["participants"] if p["name"] == sys.argv[2]))' \
	    "$T/show.json" "$1"
}
bobfp=$(fp_of bob)
alicefp=$(fp_of alice)
to_of() {	# to_of ID: the "to" list of item ID as alice reads it
	INV=$OWNER ax alice --json read -- "$1" >"$T/read.json" 2>/dev/null
	json_get "$T/read.json" '" ".join(j["to"])'
}
INV=$SENDER ax carol --verbose --json send text --to bob --to owner \
    "to bob and the owner" >"$T/to1.json" 2>"$T/to1.err"
is $? 0 "send --to NAME --to owner"
is "$(to_of "$(json_get "$T/to1.json" 'j["id"]')")" "$bobfp $alicefp" \
    "addresses exactly bob's and the owner's keys"
grep -q '/participants' "$T/to1.err"
ok $? "resolved from the participant list"
grep -q '/log' "$T/to1.err"
is $? 1 "without reading the session's log"
printf 'a file\n' >"$T/note.txt"
INV=$SENDER ax carol --json send file --to bob "$T/note.txt" >"$T/to2.json" 2>/dev/null
is "$(to_of "$(json_get "$T/to2.json" 'j["id"]')")" "$bobfp" "send file --to NAME too"
INV=$SENDER ax carol --json send text --to nobody "lost" >"$T/to3.json" 2>"$T/to3.err"
is $? 4 "an unknown name: exit status 4"
like "$(cat "$T/to3.err")" 'no participant named "nobody"' "with a clear message"
is "$(json_get "$T/to3.json" 'j["error"]')" not_found "--json says not_found"
# A second participant who calls itself bob: the name is ambiguous.
XDG_CACHE_HOME=$T/c-bob2 AIRLOX_NAME=bob AIRLOX_INVITE=$SENDER "$AIRLOX" \
    session show >/dev/null 2>&1
INV=$SENDER ax carol send text --to bob "which bob" >/dev/null 2>"$T/to4.err"
is $? 4 "an ambiguous name: exit status 4"
like "$(cat "$T/to4.err")" '2 participants are named "bob": use a fingerprint' \
    "the message says so and what to use instead"
INV=$SENDER ax carol --json send text --to "$bobfp" "the first bob" >"$T/to5.json" 2>/dev/null
is "$(to_of "$(json_get "$T/to5.json" 'j["id"]')")" "$bobfp" \
    "--to FINGERPRINT picks one of them"
# The owner revokes the second bob: the name is bob's alone again.
INV=$OWNER ax alice --json session show >"$T/show.json"
bob2fp=$(fp_of bob | tr ' ' '\n' | grep -v "^$bobfp$")
INV=$OWNER ax alice session revoke "$bob2fp" >/dev/null 2>&1
ok $? "the owner revokes the second bob"
INV=$SENDER ax carol --json send text --to bob "bob again" >"$T/to6.json" 2>"$T/to6.err"
is $? 0 "--to bob resolves again: a revoked participant is left out"
is "$(to_of "$(json_get "$T/to6.json" 'j["id"]')")" "$bobfp" "to the first bob"
done_testing
