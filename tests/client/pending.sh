#!/bin/sh
# pending.sh: listen --exec with --pending-timeout: a file whose chunks do
# not arrive in time is skipped (with a warning) and the listener wakes for
# it when they do arrive. The sender talks through a proxy that holds chunk
# uploads until the test lets them go (hostile-proxy.py, mode holdput); the
# listener talks to the relay.
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
PROXY=http://$(head -n 1 "$T/pport")
echo holdput >"$T/mode"

create_session alice || skip_all "session create failed"
SLOW=$(printf '%s' "$SENDER" | sed "s,^$REAL,$PROXY,")
INV=$SENDER ax bob session show --kind agent >/dev/null
INV=$SLOW ax carol session show >/dev/null
ok $? "carol joins through the slow proxy"

cat >"$T/rec.sh" <<SH
#!/bin/sh
echo "\$*" >>"$T/runs"
SH
chmod +x "$T/rec.sh"
AIRLOX_INVITE=$SENDER "$AX" bob --json listen --exec "$T/rec.sh" \
    --pending-timeout 1 >"$T/l.json" 2>"$T/l.err" &
L=$!
EXTRA_PIDS="$EXTRA_PIDS $L"
head -c 100000 /dev/urandom >"$T/f.bin"
INV=$SLOW ax carol --json send file --to bob "$T/f.bin" >"$T/f.json" &
S=$!
wait_for grep -q 'did not arrive in 1 s' "$T/l.err"
ok $? "the file's chunks are late: the listener skips it and says so"
test ! -s "$T/runs"
ok $? "and runs nothing for it yet"
echo none >"$T/mode"
wait $S
ok $? "the upload completes (slowly)"
id=$(json_get "$T/f.json" 'j["id"]')
wait_for grep -qF -- "$id" "$T/runs"
ok $? "when the chunks arrive, the listener wakes for the file"
is "$(cat "$T/runs")" "$id" "once, with its id"
kill $L
wait $L 2>/dev/null
done_testing
