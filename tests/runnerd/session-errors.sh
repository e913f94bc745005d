#!/bin/sh
# session-errors.sh: the runner speaks to the relay through the relay
# client library, which prints nothing: what goes wrong with its session
# is in the runner's log, in the log's form and with the library's words,
# never an "airlox: ..." line of the client's on its stderr. Its key store
# is named in the library's settings: the keys stay where a runner of an
# earlier version kept them (STATE/airlox/sessions/), so a state dir keeps
# its participant key across an upgrade.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60
ok $? "an execute session"
mkdir -p "$T/work" "$T/home"
# runner NAME INVITE [ARGS]: airlox-runnerd in the background, its log (its
# stderr and stdout) in $T/NAME.log, its state in $T/NAME-state.
runner() {
	n=$1
	inv=$2
	shift 2
	HOME=$T/home AIRLOX_INVITE="$inv" "$RUNNERD" --name "$n" \
	    --sandbox process --allow-weaker-sandbox --state-dir "$T/$n-state" \
	    --work-root "$T/work" "$@" >>"$T/$n.log" 2>&1 &
	RPID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RPID"
}
# no_client_lines FILE: the lines of FILE written the client's way.
no_client_lines() {
	grep -c '^airlox: ' "$1"
}

# A runner that joins: its key where runners always kept it.
runner box "$RUNNER"
wait_for joined box
ok $? "a runner joins"
key=$(find "$T/box-state/airlox/sessions" -name 'runner-*.json' 2>/dev/null |
    head -n 1)
[ -n "$key" ] && [ -f "$key" ]
ok $? "its participant key is in STATE/airlox/sessions/, as before"
is "$(stat -c %a "$key" 2>/dev/null)" 600 "readable by the runner only"
fp1=$(sed -n 's/.*joined session [^ ]* with key \([^ ,]*\).*/\1/p' \
    "$T/box.log" | head -n 1)
kill -TERM "$RPID"
wait "$RPID"
runner box "$RUNNER"
started() { [ "$(grep -c 'joined session' "$T/box.log")" -ge 2 ]; }
wait_for started
fp2=$(sed -n 's/.*joined session [^ ]* with key \([^ ,]*\).*/\1/p' \
    "$T/box.log" | sed -n 2p)
[ -n "$fp1" ] && [ "$fp1" = "$fp2" ]
ok $? "started again on its state dir, it is the same participant ($fp1)"
kill -TERM "$RPID"
wait "$RPID"
is "$(no_client_lines "$T/box.log")" 0 "its log holds no line of the client's"

# The session was closed: the runner says so in its log and stops (exit 0).
INV=$OWNER ax alice session close >/dev/null 2>"$T/close.err"
ok $? "the owner closes the first session"
runner closed "$RUNNER"
wait "$RPID"
is $? 0 "a runner of the closed session ends (exit 0)"
like "$(cat "$T/closed.log")" \
    "airlox-runnerd\[[0-9]+\] [a-z]+: runner: the invite's session ended .*: the session of this invite has expired, was closed, or never existed on 127\.0\.0\.1:[0-9]+: nothing to run" \
    "its log says the session ended, in the library's words"
is "$(no_client_lines "$T/closed.log")" 0 \
    "and nothing is printed the client's way"
if [ "$(no_client_lines "$T/closed.log")" -ne 0 ]; then
	sed 's/^/#   /' "$T/closed.log"
fi

# The relay is away: the runner cannot join; the log says why.
stop_relay
runner away "$RUNNER"
wait "$RPID"
rc=$?
[ $rc -ne 0 ]
ok $? "with its relay away, the runner does not start (exit $rc)"
like "$(cat "$T/away.log")" \
    'airlox-runnerd\[[0-9]+\] [a-z]+: cannot join the session \([a-z_]+\): cannot fetch the session.s manifest from 127\.0\.0\.1:[0-9]+' \
    "its log says it cannot join, in the library's words"
like "$(cat "$T/away.log")" 'cannot connect to 127\.0\.0\.1:[0-9]+' \
    "naming what failed on the way"
is "$(no_client_lines "$T/away.log")" 0 \
    "and nothing is printed the client's way (airlox: ...)"
if [ "$(no_client_lines "$T/away.log")" -ne 0 ]; then
	sed 's/^/#   /' "$T/away.log"
fi

done_testing
