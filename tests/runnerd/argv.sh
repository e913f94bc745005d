#!/bin/sh
# argv.sh: what runs is what was typed. The words after `airlox run --`
# reach the job as its argv, word for word, on every sandbox that runs here
# (local, process, and docker with a private dockerd): no shell parses them
# again. Shell syntax is `-- sh -c '...'`. The header shows the argv quoted
# so that pasting it back into a shell gives the same words; --json has it
# as an array. The footer is followed by the result's env on one line. A
# job meta that has both a command line and an argv, or an
# empty argv, is refused with the reason, never run; a runner from before
# argv jobs refuses them, and run says so and what to do.
#
# Docker is skipped with the reason when AIRLOX_SKIP_DOCKER=1, without root,
# or when dockerd cannot start; the local sandbox needs root here.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
CRAFT=$top_builddir/tests/runnerd/craft-job
. "$top_srcdir/tests/runnerd/boxes.sh"
boxes_init

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell,python --timeout 60 \
    --memory 256
ok $? "an execute session"
boxes_skip
boxes_up

run() {	# run BOX ARGS...: airlox run on BOX; stdout in $T/o, stderr in $T/e
	_box=$1
	shift
	INV=$SENDER ax bob run --timeout 120s --on "$_box" -- "$@" \
	    >"$T/o" 2>"$T/e"
}

NL='
'
for box in $BOXES; do
	run $box printf '[%s]\n' 'a b' 'c;echo X'
	is "$(cat "$T/o")" "[a b]${NL}[c;echo X]" \
	    "$box: printf got its words, and no shell ran 'echo X'"
	like "$(grep -A1 'signed by runner' "$T/e" | tail -1)" \
	    "^env · sandbox $box · airlox [0-9]" \
	    "$box: the result's env on one line under the footer"

	run $box sh -c 'exit 7'
	is $? 7 "$box: sh -c 'exit 7' exits 7"

	run $box python3 -c 'print("hi")'
	is "$?:$(cat "$T/o")" "0:hi" "$box: python3 -c 'print(\"hi\")' prints hi"

	# Empty words, quotes of both kinds, a newline, a tab, a backslash,
	# words a shell would expand: each arrives as it was typed.
	run $box printf '<%s>\n' '' "it's" 'say "x"' "two${NL}lines" \
	    'tab	here' 'back\slash' '$HOME' '*' '~' '#no comment' ''
	printf '<%s>\n' '' "it's" 'say "x"' "two${NL}lines" 'tab	here' \
	    'back\slash' '$HOME' '*' '~' '#no comment' '' >"$T/want"
	cmp -s "$T/o" "$T/want"
	ok $? "$box: empty words, quotes, newlines, tabs and shell characters arrive unchanged"

	# The header's command, pasted back into a shell, is the same argv.
	cmd=$(sed -n "1s/^$box · job [A-Za-z0-9_-]* · //p" "$T/e")
	if [ -n "$cmd" ] && command -v bash >/dev/null 2>&1; then
		bash -c "$cmd" >"$T/again" 2>/dev/null
		cmp -s "$T/again" "$T/want"
		ok $? "$box: the header's quoted argv gives the same words back"
	else
		ok 1 "$box: the header shows the argv (got: $(head -1 "$T/e"))"
	fi

	# A job that is not found says so; nothing is run by a shell instead.
	run $box 'echo hello; echo X'
	rc=$?
	[ $rc -eq 127 ] && ! grep -q '^X$' "$T/o"
	ok $? "$box: one word with spaces is a program name, not a command line: not found, exit 127 (got $rc)"
done

# --json: the argv as an array in the job event.
box=${BOXES%% *}
INV=$SENDER ax bob --json run --timeout 120s --on "$box" -- printf '%s|' 'a b' '' \
    >"$T/j.json" 2>"$T/j.err"
python3 -c 'import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
job = [e for e in ev if e.get("event") == "job"][0]
assert job["argv"] == ["printf", "%s|", "a b", ""], job
res = [e for e in ev if e.get("event") == "result"][0]
assert res["stdout"] == "a b||", res' "$T/j.json"
ok $? "--json: the job event carries the argv as an array"

# A tree job starts in its directory and still runs its words as given.
mkdir -p "$T/proj/sub"
echo one >"$T/proj/sub/a file.txt"
(cd "$T/proj" && git init -q . 2>/dev/null; cd sub &&
    AIRLOX_INVITE=$SENDER "$AX" bob run --timeout 120s --on "$box" --tree -- \
    ls -1 'a file.txt' >"$T/o" 2>"$T/e")
is "$?:$(cat "$T/o")" "0:a file.txt" "--tree: the words run in the job's directory"

# A meta with both a command line and an argv, or an empty argv: refused
# with the reason, never run.
for kind in both emptyargv; do
	J=$(AIRLOX_INVITE=$SENDER XDG_CACHE_HOME=$T/c-craft "$CRAFT" "argv-$kind" "$box" | cut -d' ' -f1)
	INV=$OWNER ax alice --json result --wait 60s "$J" >"$T/c.json" 2>"$T/c.err"
	is "$(json_get "$T/c.json" 'j.get("status"), j.get("reason")')" \
	    "('refused', 'not_allowed')" "a job meta with $kind is refused"
	like "$(json_get "$T/c.json" 'j.get("stderr")')" "cannot read the job's description" \
	    "  and the refusal says why"
done

# A runner older than argv jobs cannot decode one and refuses it as
# not_allowed, with no words of its own (craft-job refuse sends just that,
# as an approved runner "old"): run says what happened and what to do.
AIRLOX_INVITE=$RUNNER XDG_CACHE_HOME=$T/c-old CRAFT_NAME=old "$CRAFT" join - \
    >/dev/null
wait_for joined old &&
    INV=$OWNER ax alice session approve --accept-weaker old >/dev/null
ok $? "a runner from before argv jobs is approved as old"
INV=$SENDER ax bob run --timeout 120s --on old -- echo hi >"$T/old.out" \
    2>"$T/old.err" &
OLD_RUN=$!
header() { grep -q '^old · job ' "$T/old.err"; }
wait_for header
J=$(sed -n 's/^old · job \([A-Za-z0-9_-]*\) · .*/\1/p' "$T/old.err")
AIRLOX_INVITE=$RUNNER XDG_CACHE_HOME=$T/c-old CRAFT_NAME=old "$CRAFT" refuse \
    "$J" >"$T/old.craft"
like "$(cat "$T/old.craft")" ' posted$' "  it refuses the job"
wait "$OLD_RUN"
is $? 120 "  run exits with the refusal's code (120)"
like "$(cat "$T/old.err")" '^note: a runner older than this client refuses a command sent as words .*--shell FILE' \
    "  and says an older runner refuses such a job, and what to do"
done_testing
