#!/bin/sh
# listen.sh: listen --once wakes only on what concerns the participant;
# --exec runs once per batch with item ids only (never text) and the
# documented environment; --from owner ignores others; --max-hops stops two
# --exec agents answering each other; --run-timeout kills a command and its
# children; --agent runs a (fake) claude with ids in its prompt.
. "${top_srcdir:-.}/tests/client/lib.sh"
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
AIRLOX_INVITE=$SENDER "$AX" bob --json listen --once --timeout 30 >"$T/l1.json" 2>"$T/l1.err" &
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
} >>"$out.tmp"
echo end >>"$out.tmp"
mv "$out.tmp" "$out.$(date +%s%N)"
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
done_testing
