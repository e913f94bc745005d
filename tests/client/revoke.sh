#!/bin/sh
# revoke.sh: revocation and rotation take effect for the relay and for every
# participant: a revoked sender can no longer post or read new items, its
# old invite cannot join again, a rotated role's old invite fails with
# revoked, and the others carry on (kept members keep reading and posting).
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
has_endpoint PUT /v1/sessions/x/manifest || skip_all "relay lacks PUT /v1/sessions/{sid}/manifest"

create_session alice || skip_all "session create failed"
INV=$SENDER ax bob send text "bob before" >/dev/null
ok $? "bob (sender) posts"
INV=$SENDER ax mallory send text "mallory before" >/dev/null
ok $? "mallory (sender) posts"
INV=$OBSERVER ax olga session show >/dev/null
ok $? "olga (observer) joins"

# Revoke mallory.
INV=$OWNER ax alice --json session revoke mallory >"$T/rv.json" 2>"$T/rv.err"
ok $? "the owner revokes mallory"
json_lines "$T/rv.json"
ok $? "session revoke --json parses"
NEWSENDER=$(json_get "$T/rv.json" 'j["invite"]')
like "$NEWSENDER" '#1\.sender\.' "a new sender invite is printed"
INV=$SENDER ax mallory send text "mallory after" 2>"$T/m.err"
is $? 3 "the revoked sender cannot post (exit 3)"
like "$(cat "$T/m.err")" 'revoked' "and is told it was revoked"
INV=$SENDER ax mallory watch --all --timeout 1 >/dev/null 2>"$T/mr.err"
is $? 3 "nor read"
INV=$SENDER ax mallory2 send text "mallory with a new key" 2>"$T/m2.err"
is $? 3 "the leaked sender invite cannot join again with a new key"
like "$(cat "$T/m2.err")" 'revoked' "refused as revoked"

# Everyone else carries on.
INV=$SENDER ax bob --json send text "bob after" >"$T/b.json"
ok $? "bob, joined with the old sender invite, still posts"
INV=$NEWSENDER ax carol --json send text "carol with the new invite" >"$T/c.json"
ok $? "a new sender joins with the new invite and posts"
INV=$OBSERVER ax olga --json read -- "$(json_get "$T/b.json" 'j["id"]')" \
    "$(json_get "$T/c.json" 'j["id"]')" >"$T/o.json"
ok $? "the observer reads both new items (new epoch)"
is "$(python3 -c 'import json,sys
print(" | ".join(json.loads(l)["text"] for l in open(sys.argv[1])))' "$T/o.json")" \
    "bob after | carol with the new invite" "with their text"
INV=$OWNER ax alice --json session show >"$T/show.json"
is "$(json_get "$T/show.json" '[p["revoked"] for p in j["participants"] if p["name"] == "mallory"][0]')" \
    True "session show marks mallory revoked"

# Rotate the observer role: the old link fails, olga carries on.
INV=$OWNER ax alice --json session rotate observer >"$T/rot.json"
ok $? "the owner rotates the observer invite"
json_lines "$T/rot.json"
ok $? "session rotate --json parses"
NEWOBS=$(json_get "$T/rot.json" 'j["invite"]')
INV=$OBSERVER ax oscar --json session show >"$T/os.json" 2>"$T/os.err"
is $? 3 "the old observer invite fails for a newcomer (exit 3)"
is "$(json_get "$T/os.json" 'j["error"]')" revoked "with the error revoked"
INV=$OBSERVER ax olga read -- "$(json_get "$T/c.json" 'j["id"]')" >/dev/null
ok $? "olga, who joined before, carries on"
INV=$NEWOBS ax oscar session show >/dev/null
ok $? "the new observer invite works"
INV=$SENDER ax bob session rotate sender 2>"$T/br.err"
is $? 3 "a sender cannot rotate (exit 3)"
done_testing
