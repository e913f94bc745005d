#!/bin/sh
# machine-life.sh: a machine lives until `airlox machine rm`, on a relay
# with default settings, and a runner whose session ended stops once.
#
# The relay is the test build (tests/relayd/airlox-relayd-test), started
# with no lifetime option at all; its hidden POST /v1/test/clock moves the
# clock its expiry decisions read (relay-cron.c). Checked: a machine still
# runs jobs 40 days on (past the default 24 h lifetime and the 30 d
# maximum) while a session that asked for 1 h is gone; `session create`
# against a relay whose maximum is below the default lifetime gets the
# maximum and says so; a runner of a session that expired stops with one
# line and exits 0, so `airlox runner serve` does not start it again; so
# does the machine's runner after `machine rm`, and again when it is
# started later on the same state dir.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 curl
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
TRELAY=$top_builddir/tests/relayd/airlox-relayd-test
case $TRELAY in /*) ;; *) TRELAY=$(pwd)/$TRELAY ;; esac
[ -x "$TRELAY" ] || skip_all "the relay's test build is not built"
RELAYD=$TRELAY start_relay || skip_all "the relay did not start"
export XDG_CACHE_HOME=$T/cache PATH=${AIRLOX%/*}:${RUNNERD%/*}:$PATH

advance() {	# advance SECONDS: the relay's expiry clock moves on
	curl -sf -X POST "$URL/v1/test/clock?advance=$1" >/dev/null
}

airlox machine add box --yes >"$T/add.out" 2>&1 </dev/null &
ADD_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $ADD_PID"
wait_for grep -q 'runner join' "$T/add.out"
JOIN=$(grep -m 1 -o 'airlox runner join.*' "$T/add.out")
mkdir -p "$T/rs-work"
AIRLOX_STATE_DIR=$T/rs AIRLOX_WORK_ROOT=$T/rs-work sh -c "exec $JOIN" \
    >>"$T/box.log" 2>&1 &
BOX_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $BOX_PID"
wait "$ADD_PID"
is $? 0 "machine add on a relay with default settings"
lacks "$(cat "$T/add.out")" "allows no session without expiry" \
    "the relay keeps the machine's session until machine rm"
airlox run --timeout 60s --on box -- echo day one >"$T/r1.out" 2>&1
like "$(cat "$T/r1.out")" '^day one$' "a job runs on the new machine"

# A runner of a session of 2 h, started through airlox runner serve.
create_session alice --mode execute --kinds shell --ttl 2h
ok $? "an execute session of 2 h"
mkdir -p "$T/ex-work"
AIRLOX_INVITE=$RUNNER AIRLOX_STATE_DIR=$T/ex AIRLOX_WORK_ROOT=$T/ex-work \
    airlox runner serve --name shortlived >"$T/serve.log" 2>&1 &
SERVE_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $SERVE_PID"
wait_for joined shortlived
ok $? "its runner joined through airlox runner serve"
# A session that asked for an hour, as the control.
XDG_CACHE_HOME=$T/c-ctl airlox session create --ttl 1h --json >"$T/ctl.json"
ok $? "a control session with a lifetime of 1 h"
CTL=$(json_get "$T/ctl.json" 'j["invites"]["owner"]')

advance $((40 * 86400))
ok $? "the relay's clock moves 40 days on"
ctl_gone() {
	! XDG_CACHE_HOME=$T/c-ctl AIRLOX_INVITE=$CTL airlox session show \
	    >/dev/null 2>&1
}
wait_for ctl_gone
ok $? "the control session expired"
airlox run --timeout 60s --on box -- echo day forty >"$T/r2.out" 2>&1
rc=$?
is $rc 0 "40 days on, the machine still runs jobs"
if [ $rc -ne 0 ]; then
	sed 's/^/#   run: /' "$T/r2.out"
	tail -n 20 "$T/box.log" | sed 's/^/#   runner: /'
fi
like "$(cat "$T/r2.out")" '^day forty$' "with their output"
lacks "$(cat "$T/box.log")" "ended" "its runner saw no end of its session"

# The 2 h session's runner: one line, exit 0, not restarted.
wait "$SERVE_PID"
is $? 0 "after its session expired, runner serve ended (exit 0)"
is "$(grep -c 'session .* ended' "$T/serve.log")" 1 \
    "the runner said so in one line"
like "$(cat "$T/serve.log")" 'runner: session [A-Za-z0-9_-]+ ended \((it expired or was closed|the relay no longer has it)\): stopping' \
    "naming the session and why"
lacks "$(cat "$T/serve.log")" "retrying" "and retried nothing"
lacks "$(cat "$T/serve.log")" "starting it again" "runner serve did not restart it"

# machine rm: its runner stops the same way; started again, it stops at once.
airlox machine rm box >/dev/null
ok $? "machine rm"
wait "$BOX_PID"
is $? 0 "the machine's runner ended (exit 0)"
is "$(grep -c 'session .* ended' "$T/box.log")" 1 "with one line"
like "$(cat "$T/box.log")" 'runner: session [A-Za-z0-9_-]+ ended \(' \
    "saying its session is over"
AIRLOX_STATE_DIR=$T/rs AIRLOX_WORK_ROOT=$T/rs-work \
    timeout 120 airlox runner serve --name box >"$T/again.log" 2>&1
is $? 0 "started again on its state dir, runner serve ends at once (exit 0)"
like "$(cat "$T/again.log")" "session .*ended.*nothing to run" \
    "saying the session ended"
is "$(grep -c 'ended' "$T/again.log")" 1 "in one line"

# A relay whose maximum is below the default lifetime (24 h).
kill "$RELAY_PID" 2>/dev/null
wait "$RELAY_PID" 2>/dev/null
rm -rf "$T/data"
start_relay --max-session-lifetime 2h --session-lifetime 1h
ok $? "a relay whose maximum session lifetime is 2 h"
XDG_CACHE_HOME=$T/c-max airlox session create --json >"$T/max.json" 2>"$T/max.err"
is $? 0 "session create on a relay whose maximum is 2 h"
like "$(cat "$T/max.err")" 'the relay keeps a session at most 2h: this one expires ' \
    "it takes the relay's maximum and says so"
is "$(json_get "$T/max.json" '0 < j["limits"]["expires"] - j["created"] <= 7200')" True \
    "the session's lifetime is at most 2 h"
XDG_CACHE_HOME=$T/c-max airlox session create --ttl 3h >"$T/max3.out" 2>&1
ok $([ $? -ne 0 ] && echo 0 || echo 1) "an explicit --ttl over the maximum is refused"
like "$(cat "$T/max3.out")" 'at most 2h: give --ttl 2h or less' "naming the maximum"
done_testing
