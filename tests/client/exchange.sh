#!/bin/sh
# exchange.sh: two and three participants exchange text and files through
# the real relay (bytes compared), an observer cannot send, a sender cannot
# close the session, and every command's --json output parses as JSON.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 cmp
start_relay || skip_all "the relay did not start"
has_endpoint POST /v1/sessions/x/items || skip_all "relay lacks POST /v1/sessions/{sid}/items"

create_session alice --ttl 2h
ok $? "session create --json"
json_lines "$T/create.json"
ok $? "session create --json parses"
like "$SENDER" '^http://127\.0\.0\.1:[0-9]+/s/[A-Za-z0-9_-]{22}#1\.sender\.' \
    "a sender invite link"
is "$(json_get "$T/create.json" 'j["limits"]["item_max"] > 0')" True \
    "the limits are printed"

# Two participants: owner and a sender.
INV=$SENDER ax bob --json send text "hello from bob" >"$T/s1.json"
ok $? "bob (sender) sends text"
json_lines "$T/s1.json"
ok $? "send text --json parses"
id1=$(json_get "$T/s1.json" 'j["id"]')
INV=$OWNER ax alice --json read -- "$id1" >"$T/r1.json"
ok $? "alice reads it by id"
is "$(json_get "$T/r1.json" 'j["text"]')" "hello from bob" "the text arrives intact"
is "$(json_get "$T/r1.json" 'j["author"]["name"]')" bob "with its author's name"

# A stale own chain in the cache (another process with the same key
# posted) is noticed and recovered from the relay.
cp -R "$T/c-bob" "$T/c-bob.old"
INV=$SENDER ax bob send text "moves the chain on" >/dev/null
rm -rf "$T/c-bob"
mv "$T/c-bob.old" "$T/c-bob"
INV=$SENDER ax bob --json send text "after a stale chain" >"$T/s2.json"
ok $? "a stale cached chain is recovered"
INV=$OWNER ax alice --json read -- "$(json_get "$T/s2.json" 'j["id"]')" >"$T/r2.json"
is "$(json_get "$T/r2.json" 'j["text"]')" "after a stale chain" "and the item verifies for readers"

# Files of several sizes (across chunk boundaries), bytes compared.
head -c 2621440 /dev/urandom >"$T/big.bin"
printf '# Notes\n\nsome *markdown*\n' >"$T/notes.md"
printf 'print("hi")\n' >"$T/x.py"
: >"$T/empty.txt"
for f in big.bin notes.md x.py empty.txt; do
	INV=$SENDER ax bob --json send file "$T/$f" >"$T/sf.json"
	ok $? "bob sends $f"
	echo "$(json_get "$T/sf.json" 'j["id"]') $f" >>"$T/sent.txt"
done
mkdir "$T/save"
INV=$OWNER ax alice --json watch --all --save "$T/save" --timeout 3 \
    >"$T/watch.json"
ok $? "watch --all --save --timeout ends well"
json_lines "$T/watch.json"
ok $? "watch --json parses"
for f in big.bin notes.md x.py; do
	cmp -s "$T/$f" "$T/save/$f"
	ok $? "$f saved byte for byte"
done
is "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("file", {}).get("name") == "notes.md": print(j["file"]["type"])' "$T/watch.json")" \
    markdown "notes.md is markdown"
is "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("file", {}).get("name") == "x.py": print(j["file"]["type"])' "$T/watch.json")" \
    python "x.py is python"

# Never overwrite: a second save gets another name.
INV=$OWNER ax alice read --save "$T/save" -- "$(awk '$2 == "notes.md" {print $1}' "$T/sent.txt")" \
    >"$T/r2.txt"
ok $? "read --save of a file already saved"
test -f "$T/save/notes.md.1" && cmp -s "$T/save/notes.md" "$T/notes.md"
ok $? "the existing file is kept, the new one is notes.md.1"

# A third participant (another sender) and addressing.
INV=$SENDER ax carol --json send text --to bob "bob, from carol" >"$T/s3.json"
ok $? "carol (a second sender) sends to bob by name"
INV=$SENDER ax bob --json read -- "$(json_get "$T/s3.json" 'j["id"]')" >"$T/r3.json"
ok $? "bob reads carol's message"
is "$(json_get "$T/r3.json" 'j["text"]')" "bob, from carol" "three participants: text intact"
bobfp=$(INV=$SENDER ax bob --json session show | python3 -c 'import json,sys
print(json.load(sys.stdin)["me"])')
is "$(json_get "$T/r3.json" 'j["to"][0]')" "$bobfp" "addressed to bob's key"
INV=$SENDER ax carol send file "$T/big.bin" >/dev/null
ok $? "carol sends a file"
mkdir "$T/save2"
INV=$SENDER ax bob watch --all --save "$T/save2" --timeout 2 >/dev/null
cmp -s "$T/big.bin" "$T/save2/big.bin" && cmp -s "$T/big.bin" "$T/save2/big.bin.1"
ok $? "bob saves both copies of big.bin, bytes equal"

# session show --json, delivery --json.
INV=$OWNER ax alice --json session show >"$T/show.json"
ok $? "session show --json"
json_lines "$T/show.json"
ok $? "session show --json parses"
is "$(json_get "$T/show.json" 'sorted(p["name"] for p in j["participants"])')" \
    "['alice', 'bob', 'carol']" "three participants with their names"
is "$(json_get "$T/show.json" 'all(len(p["fp"]) == 22 for p in j["participants"])')" \
    True "and their key fingerprints"
INV=$SENDER ax bob --json delivery >"$T/dl.json"
ok $? "delivery --json"
json_lines "$T/dl.json"
ok $? "delivery --json parses"
is "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j["id"] == sys.argv[2]: print(sorted(f["name"] for f in j["fetched_by"]))' "$T/dl.json" "$id1")" \
    "['alice']" "alice fetched bob's first message"

# Ids may start with '-' (base64url): they are arguments, not options.
INV=$OWNER ax alice read --wait 1 -AAAAAAAAAAAAAAAAAAAAA 2>"$T/dash.err"
is $? 4 "an id starting with '-' is read as an id (no such item: exit 4)"

# An observer reads but cannot send.
INV=$OBSERVER ax olga --json read -- "$id1" >"$T/o1.json"
ok $? "the observer reads"
INV=$OBSERVER ax olga --json send text "hi" >"$T/o2.json" 2>"$T/o2.err"
is $? 3 "the observer cannot send (exit 3)"
json_lines "$T/o2.json"
ok $? "the refusal is JSON too"
is "$(json_get "$T/o2.json" 'j["error"]')" wrong_role "error wrong_role"

# A sender cannot close; the owner can.
INV=$SENDER ax bob session close 2>"$T/c1.err"
is $? 3 "a sender cannot close the session (exit 3)"
like "$(cat "$T/c1.err")" 'only the owner' "and is told why"
INV=$OWNER ax alice --json session close >"$T/close.json"
ok $? "the owner closes the session"
json_lines "$T/close.json"
ok $? "session close --json parses"
INV=$SENDER ax bob send text "too late" 2>"$T/late.err"
is $? 4 "after close, sending fails with exit 4"
like "$(cat "$T/late.err")" 'expired|closed' "and says the session is gone"

# help and version.
"$AIRLOX" --json help >"$T/help.json"
json_lines "$T/help.json"
ok $? "help --json parses"
done_testing
