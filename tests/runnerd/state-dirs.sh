#!/bin/sh
# state-dirs.sh: two machines on one host, as root with default settings,
# each with its own state dir (/var/lib/airlox-runner/NAME; the test runs
# in a private mount namespace with a tmpfs over /var/lib, so the default
# path is its own). One runner is killed mid-job, both are restarted
# without an invite: each recovers only its own job and both keep working
# with their own results. One runner per state dir (a second is refused,
# naming the first's pid); a state dir of a live session refuses another
# session's invite, naming the option; machine rm removes that session's
# state, and the runner started again stops at once.
[ "$(id -u)" -eq 0 ] || { echo "1..0 # SKIP needs root (the default state dir and the local sandbox)"; exit 0; }
if [ -z "$AIRLOX_STATE_NS" ]; then
	command -v unshare >/dev/null 2>&1 ||
	    { echo "1..0 # SKIP needs unshare(1)"; exit 0; }
	AIRLOX_STATE_NS=1 exec unshare -m --propagation private sh -c \
	    'mount -t tmpfs -o mode=0755 tmpfs /var/lib && exec sh "$0"' "$0"
fi
. "${top_srcdir:-.}/tests/lib.sh"
need python3
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
start_relay || skip_all "the relay did not start"
export XDG_CACHE_HOME=$T/cache PATH=${AIRLOX%/*}:${RUNNERD%/*}:$PATH
unset AIRLOX_STATE_DIR AIRLOX_WORK_ROOT
BASE=/var/lib/airlox-runner

# add NAME: machine add in the background; JOIN_NAME is its join command.
add() {
	airlox machine add "$1" --yes >"$T/add-$1.out" 2>&1 </dev/null &
	ADD_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $ADD_PID"
	wait_for grep -q 'runner join' "$T/add-$1.out"
	JOIN=$(grep -m 1 -o 'airlox runner join.*' "$T/add-$1.out")
	sh -c "exec $JOIN" >>"$T/$1.log" 2>&1 &
	eval "PID_$1=\$!"
	EXTRA_PIDS="$EXTRA_PIDS $!"
	wait "$ADD_PID"
}
restart() {	# restart NAME: the runner again, no invite, default state dir
	"$RUNNERD" --name "$1" >>"$T/$1.log" 2>&1 &
	eval "PID_$1=\$!"
	EXTRA_PIDS="$EXTRA_PIDS $!"
}

add cbox
is $? 0 "machine cbox added, its runner joined with default settings"
add dbox
is $? 0 "machine dbox added on the same host"
[ -e "$BASE/cbox/invite" ] && [ -e "$BASE/dbox/invite" ]
ok $? "each machine has its own state dir ($BASE/cbox, $BASE/dbox)"

airlox --json run --on cbox --no-wait -- sh -c 'echo begun; sleep 300' \
    >"$T/long.json" 2>&1
LONG=$(json_get "$T/long.json" 'j["job"]')
wait_for grep -q "job $LONG: started" "$T/cbox.log"
ok $? "a long job runs on cbox"
kill -9 "$PID_cbox"
wait "$PID_cbox" 2>/dev/null
[ -n "$(ls "$BASE/cbox/running")" ]
ok $? "cbox's runner was killed mid-job: its running record is kept"
airlox run --timeout 120s --on dbox -- echo dbox one >"$T/d1.out" 2>&1
like "$(cat "$T/d1.out")" '^dbox one$' "dbox runs jobs meanwhile"

kill "$PID_dbox"
wait "$PID_dbox" 2>/dev/null
restart cbox
restart dbox
airlox --json result --on cbox --wait 120s -- "$LONG" >"$T/long-res.json" 2>&1
is "$(json_get "$T/long-res.json" 'j["status"]')" interrupted \
    "restarted, cbox reports its own cut job as interrupted"
airlox run --timeout 120s --on cbox -- echo cbox after >"$T/c2.out" 2>&1
like "$(cat "$T/c2.out")" '^cbox after$' "cbox keeps working"
airlox run --timeout 120s --on dbox -- echo dbox after >"$T/d2.out" 2>&1
like "$(cat "$T/d2.out")" '^dbox after$' "dbox keeps working"
lacks "$(cat "$T/dbox.log")" "recover:" "dbox recovered nothing (nothing of cbox's)"
lacks "$(cat "$T/dbox.log" "$T/cbox.log")" "stale_manifest" "no stale_manifest anywhere"

# One runner per state dir.
"$RUNNERD" --name dbox >"$T/second.log" 2>&1
rc=$?
ok $([ $rc -ne 0 ] && echo 0 || echo 1) "a second runner on dbox's state dir is refused ($rc)"
like "$(cat "$T/second.log")" "state dir $BASE/dbox is in use by airlox-runnerd pid $PID_dbox" \
    "naming the first one's pid"

# A state dir of a live session refuses another session's invite.
kill "$PID_cbox"
wait "$PID_cbox" 2>/dev/null
DINV=$(cat "$XDG_CACHE_HOME/airlox/machines/dbox/runner")
AIRLOX_INVITE=$DINV "$RUNNERD" --name cbox >"$T/foreign.log" 2>&1
rc=$?
ok $([ $rc -ne 0 ] && echo 0 || echo 1) "cbox's state dir refuses dbox's session ($rc)"
like "$(cat "$T/foreign.log")" "state dir $BASE/cbox belongs to session .*, which is still live: .*--state-dir" \
    "naming the session it belongs to and the option"
[ -e "$BASE/cbox/invite" ] && ! cmp -s "$BASE/cbox/invite" "$BASE/dbox/invite"
ok $? "and cbox's state is as it was"

# machine rm: the session's state goes; started again, the runner stops.
restart cbox
wait_for grep -q 'waiting for jobs\|approved by the owner' "$T/cbox.log"
airlox machine rm cbox >/dev/null
ok $? "machine rm cbox"
wait "$PID_cbox"
is $? 0 "cbox's runner ended (exit 0)"
[ ! -e "$BASE/cbox/invite" ] && [ ! -e "$BASE/cbox/running" ] &&
    [ ! -e "$BASE/cbox/audit.log" ]
ok $? "cbox's session state is removed"
like "$(cat "$T/cbox.log")" "state dir $BASE/cbox: the state of session .* removed" \
    "in one line"
"$RUNNERD" --name cbox >"$T/again.log" 2>&1
is $? 0 "started again, cbox's runner stops at once (exit 0)"
like "$(cat "$T/again.log")" 'session .* of this state dir ended: nothing to run' \
    "saying its session ended"
airlox run --timeout 120s --on dbox -- echo dbox last >"$T/d3.out" 2>&1
like "$(cat "$T/d3.out")" '^dbox last$' "dbox still works"
[ $tap_failed -ne 0 ] && grep -v " info: " "$T/cbox.log" | head -n 40 | sed 's/^/#   cbox: /'
done_testing
