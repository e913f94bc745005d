#!/bin/sh
# rollback.sh: a relay that rolls a session back is refused. The owner
# revokes an observer (manifest version 2, epoch 1); a sender that has seen
# version 2 is then served the session as it was at version 1 by a hostile
# relay (hostile-proxy.py, mode rollback). Without the check the sender
# would seal its message under epoch 0 and report success, and the revoked
# observer would read it with its old invite. The sender refuses (exit 6,
# nothing posted), keeps the newest version it verified in its cache
# (0600), and so does every later command; a log cut before version 2
# (rollback-log) is refused the same way.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
# Clients sign for the proxy's address (127.0.0.1, another port), which
# the proxy passes on as Host: a name of the relay.
start_relay --public-name 127.0.0.1 || skip_all "the relay did not start"
python3 "$top_srcdir/tests/client/hostile-proxy.py" "$URL" "$T/mode" \
    "$T/pport" 2>"$T/proxy.log" &
EXTRA_PIDS="$EXTRA_PIDS $!"
wait_for test -s "$T/pport" || skip_all "the proxy did not start"
URL=http://$(head -n 1 "$T/pport")
export AIRLOX_RELAY="$URL"
echo none >"$T/mode"
SECRET="sealed after the revocation"

create_session alice || skip_all "session create failed"
SID=$(json_get "$T/create.json" 'j["sid"]')
INV=$SENDER ax bob send text "before the revocation" >/dev/null
ok $? "bob (sender) posts under version 1"
INV=$OBSERVER ax eve --json watch --all --timeout 1 >"$T/e0.json"
like "$(cat "$T/e0.json")" 'before the revocation' \
    "eve (observer) joins and reads it"

INV=$OWNER ax alice session revoke eve >/dev/null 2>"$T/rv.err"
ok $? "the owner revokes eve: version 2, epoch 1"
INV=$SENDER ax bob --json watch --all --timeout 1 >/dev/null
ok $? "bob reads the session and so verifies version 2"
PIN=$T/c-bob/airlox/sessions/$SID/manifest
is "$(json_get "$PIN" 'j["ver"]')" 2 "bob's cache keeps version 2"
is "$(stat -c %a "$PIN")" 600 "in a file of mode 0600"

# The hostile relay serves version 1 and keeps what is posted to it; eve
# has not been in touch since she was revoked.
echo rollback >"$T/mode"
INV=$SENDER ax bob --json send text "$SECRET" >"$T/b.json" 2>"$T/b.err"
is $? 6 "rolled back to version 1: bob refuses to send (exit 6)"
like "$(cat "$T/b.err")" 'version 1, but version 2 was verified' \
    "and says the relay served an older manifest than he verified"
is "$(json_get "$T/b.json" 'j["error"]')" manifest_rollback \
    "--json: error manifest_rollback"
INV=$OBSERVER ax eve --json watch --all --timeout 1 >"$T/e1.json" 2>/dev/null
ok $? "eve, with her old invite, reads the rolled-back session"
is "$(grep -c "$SECRET" "$T/e1.json")" 0 "and finds nothing sealed after the revocation"
INV=$SENDER ax bob watch --all --timeout 1 >/dev/null 2>"$T/bw.err"
is $? 6 "bob's watch refuses the rolled-back session too"
INV=$SENDER ax bob-laptop --json send text "$SECRET" >"$T/bl.json" 2>/dev/null
is "$(json_get "$T/bl.json" 'j.get("error", "sent")')" sent \
    "a machine that never saw version 2 cannot tell (withholding; DESIGN.md)"

# A relay that serves the whole manifest chain but cuts the log.
echo rollback-log >"$T/mode"
INV=$SENDER ax bob --json watch --all --timeout 1 >"$T/bl2.json" 2>"$T/bl2.err"
is $? 6 "a log cut before version 2: refused (exit 6)"
is "$(json_get "$T/bl2.json" 'j["error"]')" manifest_rollback \
    "with manifest_rollback"

# Honest again: everything goes on, the kept version does not go back.
echo none >"$T/mode"
INV=$SENDER ax bob --json send text "after the relay was honest again" \
    >"$T/b2.json"
ok $? "through an honest relay bob posts again"
INV=$OWNER ax alice --json watch --all --timeout 1 >"$T/a.json"
like "$(cat "$T/a.json")" 'after the relay was honest again' \
    "and the owner reads it"
is "$(json_get "$PIN" 'j["ver"]')" 2 "bob's cache still keeps version 2"
INV=$OBSERVER ax eve watch --all --timeout 1 >/dev/null 2>&1
is $? 3 "and through an honest relay, eve is refused as revoked"
done_testing
