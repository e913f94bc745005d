#!/bin/sh
# tree-e2e.sh: "airlox run --tree" end to end with the real relay, runner
# (local sandbox) and client: a git checkout of 500 files goes to the
# sender's workspace; the job starts in the matching directory and sees
# exactly the tree; a second run after changing 2 files sends only them
# (bytes sent asserted), a deleted file is gone on the runner, a build
# artifact of the first job survives; --fresh clears it; a delta the
# runner cannot apply (its workspace was changed) falls back to the full
# tree; a crafted .env is refused with the flag that allows it.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 git
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
"$AIRLOX" run --help 2>&1 | grep -q -- --tree || skip_all "airlox run has no --tree"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 512
ok $? "an execute session"
mkdir -p "$T/rwork"
AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box --state-dir "$T/rstate" \
    --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
wait_for joined box
ok $? "the runner joined"
INV=$OWNER ax alice session approve box >/dev/null
ok $? "the owner approves it"

# A checkout of 500 files of 1 KiB in 10 directories, one of them ignored.
P=$T/proj
mkdir -p "$P" && cd "$P" || exit 1
git init -q . && git config commit.gpgsign false
python3 - <<'PY'
import os
for d in range(10):
    os.makedirs("pkg%d" % d, exist_ok=True)
    for f in range(50):
        with open("pkg%d/f%02d.txt" % (d, f), "w") as fp:
            fp.write(("%d-%d " % (d, f)) * 200 + "\n")
PY
printf '*.log\nbuild/\n' >.gitignore
git add . && git commit -q -m init
ok $? "a git checkout of 500 files"
printf 'ignored\n' >pkg0/debug.log
cd "$P/pkg3" || exit 1

run() {	# run OUT [ARGS...]: airlox run --json as bob, in the current dir
	o=$1
	shift
	INV=$SENDER ax bob --json run --on box "$@" >"$T/$o.json" 2>"$T/$o.err"
}
run r1 --tree -- sh -c 'pwd; find .. -type f ! -path "../build/*" | wc -l; test -e ../pkg0/debug.log && echo LEAK; mkdir -p ../build && echo art > ../build/artifact.o'
is $? 0 "a first run with --tree"
like "$(json_get "$T/r1.json" 'j["stdout"]')" 'pkg3' "the job starts in the matching directory"
is "$(json_get "$T/r1.json" 'j["stdout"].split()[1]')" 501 \
    "it sees exactly the tree (500 files and .gitignore, no ignored file)"
FULL=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("event") == "job": print(j["tree"]["sent"])' "$T/r1.json")
is "$(json_get "$T/r1.json" '"tree" in j["env"]')" True "the result confirms the tree it holds"

printf 'changed one\n' >>"$P/pkg3/f01.txt"
printf 'changed two\n' >>"$P/pkg7/f49.txt"
rm "$P/pkg5/f10.txt"
CHANGED=$(( $(stat -c %s "$P/pkg3/f01.txt") + $(stat -c %s "$P/pkg7/f49.txt") ))
run r2 --tree -- sh -c 'test -e ../build/artifact.o && echo ARTIFACT; test -e ../pkg5/f10.txt || echo GONE; tail -1 f01.txt; find .. -type f ! -path "../build/*" | wc -l'
is $? 0 "a second run"
SENT=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("event") == "job": print(j["tree"]["sent"], j["tree"]["changed"], j["tree"]["deleted"], j["tree"]["delta"])' "$T/r2.json")
set -- $SENT
is "$2 $3 $4" "2 1 True" "a delta: 2 changed files, 1 deleted"
# Per file a 512-byte header and padding to 512, plus the 1 KiB end.
ok $([ "$1" -le $((CHANGED + 2 * 1024 + 1024)) ] && echo 0 || echo 1) \
    "bytes sent ($1) <= the changed files ($CHANGED) + 3 KiB (the full tree was $FULL)"
like "$(json_get "$T/r2.json" 'j["stdout"]')" 'ARTIFACT' "a build artifact of the first job survives"
like "$(json_get "$T/r2.json" 'j["stdout"]')" 'GONE' "the deleted file is gone on the runner"
like "$(json_get "$T/r2.json" 'j["stdout"]')" 'changed one' "the changed file is there"
is "$(json_get "$T/r2.json" 'j["stdout"].split()[-1]')" 500 "the tree has 500 files"

# The job changes a tree file: the runner no longer confirms the tree,
# the next run sends the full tree.
run r3 --tree -- sh -c 'echo edited >> f02.txt'
is "$(json_get "$T/r3.json" '"tree" in j["env"]')" False "a job that edits the tree: not confirmed"
run r4 --tree -- tail -1 f02.txt
like "$(json_get "$T/r4.json" 'j["stdout"]')" '^3-2 ' "the next run restores the tree"
is "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("event") == "job": print(j["tree"]["delta"])' "$T/r4.json")" False "with the full tree"

run r5 --tree --fresh -- sh -c 'test -e ../build/artifact.o && echo STILL || echo CLEAN'
is $? 0 "--fresh"
like "$(json_get "$T/r5.json" 'j["stdout"]')" 'CLEAN' "--fresh clears the workspace"

printf 'TOKEN=1\n' >"$P/.env"
run r6 --tree -- true
ok $([ $? -ne 0 ] && echo 0 || echo 1) "a .env is refused"
like "$(cat "$T/r6.err" "$T/r6.json")" '\.env.*--tree-allow' "naming it and --tree-allow"
run r7 --tree --tree-allow .env -- cat ../.env
like "$(json_get "$T/r7.json" 'j["stdout"]')" 'TOKEN=1' "--tree-allow sends it"

# The runner lost its record (a state dir restored from a backup): the
# delta is refused with tree_mismatch and the client sends the full tree.
rm -f "$P/.env" "$T"/rstate/trees/????????????????????????????????
run r8 --tree -- tail -1 f01.txt
is $? 0 "a delta on a workspace the runner does not vouch for"
is "$(python3 -c 'import json,sys
print([j["tree"]["delta"] for j in map(json.loads, open(sys.argv[1])) if j.get("event") == "job"])' "$T/r8.json")" \
    "[True, False]" "is refused, then sent as the full tree"
like "$(json_get "$T/r8.json" 'j["stdout"]')" 'changed one' "and the job runs on it"

# --no-wait, then airlox result --wait: the result confirms the tree, so
# the next run sends a delta the runner accepts (without the confirmation
# the client's base would be the older tree: tree_mismatch, then full).
printf 'no-wait change\n' >>"$P/pkg4/f04.txt"
INV=$SENDER ax bob run --on box --tree --no-wait -- tail -1 ../pkg4/f04.txt \
    >"$T/nw.id" 2>"$T/nw.err"
is $? 0 "run --tree --no-wait prints a job id"
INV=$SENDER ax bob result --wait 60s -- "$(cat "$T/nw.id")" >"$T/nw.out" \
    2>"$T/nw.err2"
is $? 0 "result --wait picks it up"
like "$(cat "$T/nw.err2")" 'runner holds the tree' "and keeps the tree the result confirms"
printf 'after no-wait\n' >>"$P/pkg4/f05.txt"
run r9 --tree -- tail -1 ../pkg4/f05.txt
is "$(python3 -c 'import json,sys
print([j["tree"]["delta"] for j in map(json.loads, open(sys.argv[1])) if j.get("event") == "job"])' "$T/r9.json")" \
    "[True]" "the next run sends only a delta, and the runner takes it"
like "$(json_get "$T/r9.json" 'j["stdout"]')" 'after no-wait' "the job sees the change"

# A name outside ASCII, from a client in a UTF-8 locale (its archive names
# it in a UTF-8 pax header); the runner runs in the C locale.
if locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$'; then
	printf 'accented\n' >"$P/caf$(printf '\303\251').txt"
	(cd "$P" && git add . && git commit -q -m utf8)
	LC_ALL=C.UTF-8 run r10 --tree -- sh -c 'cat ../caf*.txt'
	is $? 0 "a tree with a UTF-8 file name is taken"
	like "$(json_get "$T/r10.json" 'j["stdout"]')" 'accented' "and the job reads the file"
else
	skip "a tree with a UTF-8 file name" "no C.UTF-8 locale here"
fi

ls "$T/rwork" | grep -q '^ws-'
ok $? "the workspace lives under the work root"
kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/runner.log" | tail -20
fi
done_testing
