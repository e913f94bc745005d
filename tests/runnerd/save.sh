#!/bin/sh
# save.sh: `airlox run --save DIR` and `airlox result JOB --save DIR` save
# the files a job wrote to $AIRLOX_OUT: one file as it is, several from the
# runner's ZIP, folders included; a name that exists is never written over
# (the new file is NAME.1). Then a lying runner (tests/runnerd/craft-job):
# a ZIP whose entries climb out of DIR, are absolute, are links, or are not
# in the signed list; a list whose name climbs out; a folder of DIR that is
# a link to elsewhere. Nothing is written outside DIR, and the command
# fails naming what it refused. With the real relay, runner and client.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
CRAFT=$top_builddir/tests/runnerd/craft-job

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 256
ok $? "an execute session"
runner_up box
ok $? "a runner joined and was approved"

# Several files, in folders: from the runner's ZIP.
mkdir "$T/dl"
INV=$SENDER ax bob --json run --timeout 60s --on box --save "$T/dl" -- sh -c \
    'echo one >"$AIRLOX_OUT/a.txt"; mkdir "$AIRLOX_OUT/d"; echo two >"$AIRLOX_OUT/d/b.txt"' \
    >"$T/s1.json" 2>"$T/s1.err"
is $? 0 "run --save: the job and the saving succeed"
is "$(cat "$T/dl/a.txt"):$(cat "$T/dl/d/b.txt")" "one:two" \
    "both files saved, the folder made"
J1=$(python3 -c 'import json,sys
print([j for j in map(json.loads, open(sys.argv[1])) if j.get("event") == "job"][0]["job"])' "$T/s1.json")
python3 -c 'import json,sys
ev = [j for j in map(json.loads, open(sys.argv[1])) if j.get("event") == "saved"][0]
assert sorted(f["name"] for f in ev["files"]) == ["a.txt", "d/b.txt"], ev
assert ev["refused"] == 0' "$T/s1.json"
ok $? "--json: a saved event names them"
INV=$SENDER ax bob result --save "$T/dl" "$J1" >"$T/r1.out" 2>"$T/r1.err"
is $? 0 "result JOB --save, into the same folder"
is "$(cat "$T/dl/a.txt"):$(cat "$T/dl/a.txt.1"):$(cat "$T/dl/d/b.txt.1")" \
    "one:one:two" "nothing written over: the second copies are NAME.1"
like "$(cat "$T/r1.err")" '^saved .*/dl/a\.txt\.1$' "  and it says where"
lacks "$(cat "$T/r1.err")" "files ·" "  no line of files not saved"

# Without --save: a line under the footer names the files and the command
# that saves them, which pasted as it is (DIR named) saves them.
INV=$SENDER ax bob result "$J1" >"$T/r0.out" 2>"$T/r0.err"
line=$(grep '^files · ' "$T/r0.err")
like "$line" "^files · 2 \\(8 bytes\\) · (a\.txt · d/b\.txt|d/b\.txt · a\.txt) · not saved: airlox result --save DIR -- $J1\$" \
    "result without --save: a line names the files, and how to save them"
mkdir "$T/pasted"
cmd=$(printf '%s\n' "$line" | sed 's/.*not saved: airlox //; s|DIR|'"$T/pasted"'|')
eval "INV=\$SENDER ax bob $cmd" >/dev/null 2>&1
is "$?:$(cat "$T/pasted/a.txt"):$(cat "$T/pasted/d/b.txt")" "0:one:two" \
    "  that command saves them"
INV=$SENDER ax bob run --timeout 60s --on box -- sh -c \
    'for i in 1 2 3 4 5 6 7 8 9 10; do : >"$AIRLOX_OUT/f$i"; done' \
    >/dev/null 2>"$T/r10.err"
like "$(grep '^files · ' "$T/r10.err")" '^files · 10 \(0 bytes\)( · f[0-9]+){8} · 2 more · not saved' \
    "run without --save: the first 8 names of 10 files, and how many more"

# One file: the payload itself.
mkdir "$T/one"
INV=$SENDER ax bob run --timeout 60s --on box --save "$T/one" -- sh -c \
    'printf "\001\377bin" >"$AIRLOX_OUT/only.bin"' >/dev/null 2>&1
is "$(od -An -tx1 "$T/one/only.bin" | tr -d ' ')" "01ff62696e" \
    "a single file, byte for byte"
INV=$SENDER ax bob run --timeout 60s --on box --save "$T/nonesuch" -- true \
    >/dev/null 2>"$T/nd.err"
is $? 2 "--save of a folder that is not there: a usage error, before the job"

# A lying runner: it joins with the runner invite and is approved.
craft() {
	CRAFT_NAME=crafter XDG_CACHE_HOME="$T/c-crafter" AIRLOX_INVITE="$RUNNER" \
	    "$CRAFT" "$@"
}
craft join - >/dev/null
wait_for joined crafter &&
    INV=$OWNER ax alice session approve --accept-weaker crafter >/dev/null
ok $? "a crafted runner is approved"
job() {	# a job for the crafted runner; prints its id
	INV=$SENDER ax bob run --on crafter --no-wait -- true 2>/dev/null
}

EVIL=$T/evil-$$.txt
python3 - "$T/hostile.zip" "$EVIL" <<'PY'
import sys, zipfile
path, evil = sys.argv[1:]
with zipfile.ZipFile(path, "w") as z:
    z.writestr("ok.txt", "one")
    z.writestr("../evil-rel.txt", "climbs out")
    z.writestr(evil, "absolute")
    z.writestr("sub/two.txt", "two")
    ln = zipfile.ZipInfo("ln")
    ln.external_attr = (0o120777 << 16)     # a symbolic link
    z.writestr(ln, "/etc/passwd")
    z.writestr("unlisted.txt", "not in the list")
PY
J2=$(job)
craft files "$J2" "$T/hostile.zip" \
    '[{"name":"ok.txt","size":3},{"name":"sub/two.txt","size":3},{"name":"ln","size":11}]' \
    >/dev/null
mkdir "$T/z"
INV=$SENDER ax bob result --wait 30s --save "$T/z" "$J2" >"$T/z.out" 2>"$T/z.err"
rc=$?
[ $rc -ne 0 ]
ok $? "a hostile ZIP: result --save fails (exit $rc)"
is "$(cat "$T/z/ok.txt"):$(cat "$T/z/sub/two.txt")" "one:two" \
    "  the listed regular files are saved"
[ ! -e "$T/evil-rel.txt" ] && [ ! -e "$EVIL" ] && [ ! -e "$T/z/ln" ] &&
    [ ! -e "$T/z/unlisted.txt" ]
ok $? "  nothing outside DIR, no link, nothing unlisted"
like "$(cat "$T/z.err")" 'refused' "  and it names what it refused"
is "$(find "$T/z" -name '.airlox*' | wc -l)" 0 "  no temporary file left"

# A list whose name climbs out: the result does not verify at all.
printf x >"$T/x.bin"
J3=$(job)
craft files "$J3" "$T/x.bin" '[{"name":"../escape.txt","size":1}]' >/dev/null
mkdir "$T/z2"
INV=$SENDER ax bob result --wait 30s --save "$T/z2" "$J3" >/dev/null 2>"$T/z2.err"
rc=$?
[ $rc -ne 0 ] && [ ! -e "$T/escape.txt" ] && [ -z "$(ls -A "$T/z2")" ]
ok $? "a name that climbs out of DIR: refused, nothing written (exit $rc)"

# A folder of DIR that is a link to elsewhere: not followed.
J4=$(job)
craft files "$J4" "$T/x.bin" '[{"name":"sub/x.txt","size":1}]' >/dev/null
mkdir "$T/z3" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/z3/sub"
INV=$SENDER ax bob result --wait 30s --save "$T/z3" "$J4" >/dev/null 2>"$T/z3.err"
rc=$?
[ $rc -ne 0 ] && [ ! -e "$T/elsewhere/x.txt" ]
ok $? "a link in DIR is not followed (exit $rc)"
like "$(cat "$T/z3.err")" 'sub/x.txt refused' "  and the file is named as refused"
done_testing
