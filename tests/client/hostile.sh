#!/bin/sh
# hostile.sh: a relay that tampers with, replays, reorders, drops or forges
# items (a proxy in front of the real relay, hostile-proxy.py) is caught by
# the client every time: exit status 6, nothing shown, no file written. And
# a post whose answer was lost is not reported as failed, nor stored twice.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
# Clients sign for the proxy's address (127.0.0.1, another port), which
# the proxy passes on as Host: a name of the relay.
start_relay --public-name 127.0.0.1 || skip_all "the relay did not start"
REAL=$URL
python3 "$top_srcdir/tests/client/hostile-proxy.py" "$REAL" "$T/mode" \
    "$T/pport" 2>"$T/proxy.log" &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/pport" || skip_all "the proxy did not start"
URL=http://$(head -n 1 "$T/pport")
export AIRLOX_RELAY="$URL"
echo none >"$T/mode"

create_session alice || skip_all "session create failed"
INV=$SENDER ax bob send text "first" >/dev/null
INV=$SENDER ax bob send text "second" >/dev/null
INV=$SENDER ax bob --json send text "third" >"$T/t3.json"
head -c 1500000 /dev/urandom >"$T/f.bin"
INV=$SENDER ax bob --json send file "$T/f.bin" >"$T/f.json"
ok $? "items posted through an honest proxy"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/honest.json"
is "$(grep -c '"event":"item"' "$T/honest.json")" 4 "an honest relay: four items shown"

for m in flip replay reorder drop forge manifest; do
	echo "$m" >"$T/mode"
	INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/$m.json" \
	    2>"$T/$m.err"
	is $? 6 "$m: caught (exit 6)"
	like "$(tail -n 1 "$T/$m.json")" '"error":"[a-z_]+"' "$m: reported as an error"
	like "$(cat "$T/$m.err")" 'does not verify' "$m: the message says so"
done
# A fresh participant is caught too (nothing cached helps it).
echo reorder >"$T/mode"
INV=$SENDER ax newcomer read -- "$(json_get "$T/t3.json" 'j["id"]')" \
    >"$T/nc.out" 2>/dev/null
is $? 6 "reorder: a newcomer reading by id is caught"
is "$(cat "$T/nc.out")" "" "and shows nothing"

echo chunk >"$T/mode"
mkdir "$T/save"
INV=$OWNER ax alice read --save "$T/save" -- "$(json_get "$T/f.json" 'j["id"]')" \
    >/dev/null 2>"$T/chunk.err"
is $? 6 "chunk: a flipped chunk byte is caught (exit 6)"
is "$(ls -A "$T/save")" "" "and no file (not even a partial one) is left"

echo none >"$T/mode"
INV=$OWNER ax alice read --save "$T/save" -- "$(json_get "$T/f.json" 'j["id"]')" \
    >/dev/null
ok $? "through an honest relay again, the file is read"
cmp -s "$T/f.bin" "$T/save/f.bin"
ok $? "byte for byte"

# A post whose answer is lost (the relay stored it, the connection dropped
# before the 201): the client's retry is refused as a replay, and the
# client finds its own item stored under its id: success, posted once.
echo dropack >"$T/mode"
INV=$SENDER ax bob --json send text "lost answer" >"$T/da.json" 2>"$T/da.err"
st=$?
ok $st "dropack: send succeeds though the first answer was lost"
[ $st -eq 0 ] || sed 's/^/#   /' "$T/da.err"
echo none >"$T/mode"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/da-watch.json"
is "$(grep -c 'lost answer' "$T/da-watch.json")" 1 "dropack: the item is in the log once"
like "$(cat "$T/da-watch.json")" "$(json_get "$T/da.json" 'j["id"]')" \
    "dropack: under the id send printed"
done_testing
