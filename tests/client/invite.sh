#!/bin/sh
# invite.sh: bad, unknown, refused, expired and closed invites fail with a
# clear message and the documented exit status (airlox(1)), in JSON too.
#
# The relay is the test build (tests/relayd/airlox-relayd-test): its hidden
# POST /v1/test/clock moves the expiry clock, so a session expires when the
# test says, not when a busy machine gets round to it.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
RELAYD=$top_builddir/tests/relayd/airlox-relayd-test
case $RELAYD in /*) ;; *) RELAYD=$(pwd)/$RELAYD ;; esac
[ -x "$RELAYD" ] || skip_all "no $RELAYD (make check builds it)"
start_relay || skip_all "the relay did not start"

INV= ax bob send text hi 2>"$T/e0.err"
is $? 3 "no invite: exit 3"
like "$(cat "$T/e0.err")" 'no invite: set AIRLOX_INVITE' "and says how to give one"

INV="https://relay.example/s/notasessionid#1.sender.xyz" ax bob --json send text hi \
    >"$T/e1.json" 2>"$T/e1.err"
is $? 3 "a malformed invite: exit 3"
is "$(json_get "$T/e1.json" 'j["error"]')" bad_invite "JSON error bad_invite"
like "$(cat "$T/e1.err")" 'not an airlox invite link' "a clear message"

create_session alice --ttl 1h || skip_all "session create failed"
host_inv=$(printf '%s' "$SENDER" | sed 's,^http://127\.0\.0\.1:[0-9]*,http://relay.invalid,')
INV=$host_inv ax bob send text hi 2>"$T/e2.err"
is $? 3 "plain http:// to another host is refused (exit 3)"
like "$(cat "$T/e2.err")" 'insecure-http-host relay.invalid' "and names the option"
INV=$host_inv ax bob --insecure-http-host relay.invalid send text hi 2>"$T/e3.err"
is $? 5 "with --insecure-http-host it is tried (unreachable here: exit 5)"

# A well-formed invite for a session that does not exist.
unknown=$(printf '%s' "$SENDER" | sed 's,/s/[A-Za-z0-9_-]*#,/s/AAAAAAAAAAAAAAAAAAAAAA#,')
INV=$unknown ax bob --json send text hi >"$T/e4.json" 2>"$T/e4.err"
is $? 4 "an unknown session: exit 4"
is "$(json_get "$T/e4.json" 'j["error"]')" session_expired "JSON error session_expired"
like "$(cat "$T/e4.err")" 'expired, was closed, or never existed' "a clear message"

# A wrong seed for a real session: the relay refuses to let it join.
wrong=$(printf '%s' "$SENDER" | sed 's,\.sender\.[A-Za-z0-9_-]*$,.sender.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA,')
INV=$wrong ax eve send text hi 2>"$T/e5.err"
is $? 3 "a forged seed cannot join (exit 3)"

# An expired session: one hour, then the relay's clock moves two hours on.
create_session alice --ttl 1h || skip_all "session create failed"
INV=$SENDER ax bob send text "just in time" >/dev/null
ok $? "a one-hour session works at first"
curl -sS -X POST "$URL/v1/test/clock?advance=7200&sweep=off" >/dev/null
INV=$SENDER ax bob send text late >/dev/null 2>&1
is $? 4 "after its ttl, sending fails with exit 4"
INV=$SENDER ax bob --json send text late >"$T/e6.json" 2>"$T/e6.err"
is "$(json_get "$T/e6.json" 'j["error"]')" session_expired "JSON error session_expired"
like "$(cat "$T/e6.err")" 'expired' "a clear message"
done_testing
