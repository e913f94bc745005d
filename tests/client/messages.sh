#!/bin/sh
# messages.sh: messages that say what went wrong and what to do next. A
# relay that needs a creation token says how to give one (--creation-token,
# AIRLOX_CREATION_TOKEN; the old AIRLOX_CREATE_TOKEN still works, with a
# warning); a lifetime over the relay's maximum names the maximum; session
# create and session show tell the expiry the relay set; --on NAME that
# names no machine lists the machines kept here (run, result); session
# code prints a receive command that names the relay; "an observer" (and a
# runner given its invite names the role); sizes in MiB; one "(default:
# ...; repeatable)"; a cache directory below missing folders is made (0700).
. "${top_srcdir:-.}/tests/lib.sh"
need python3

# A relay that lets only the holders of a token create sessions, keeps
# sessions 24 h unless asked for less (none forever), and at most 2 days.
AIRLOX_CREATION_TOKEN=tok3n start_relay --max-session-lifetime 2d \
    --allow-no-expiry=no ||
    skip_all "the relay did not start"
unset AIRLOX_CREATION_TOKEN	# (a shell may keep it after the call)
create() {	# create NAME ARGS...: session create as NAME
	_n=$1
	shift
	XDG_CACHE_HOME="$T/c-$_n" "$AIRLOX" session create "$@"
}

create a >/dev/null 2>"$T/notok.err"
is $? 3 "no creation token: refused (exit 3)"
like "$(cat "$T/notok.err")" 'creation token.*--creation-token TOKEN or AIRLOX_CREATION_TOKEN' \
    "the message names the flag and the variable"
create b --creation-token wrong >/dev/null 2>"$T/wrong.err"
is $? 3 "a wrong token: refused"
like "$(cat "$T/wrong.err")" 'refused the creation token given' "and says the token was wrong"
create c --creation-token tok3n >/dev/null 2>"$T/flag.err"
ok $? "--creation-token TOKEN creates the session"
AIRLOX_CREATION_TOKEN=tok3n create d >/dev/null 2>"$T/env.err"
ok $? "AIRLOX_CREATION_TOKEN, the relay's own name, works"
AIRLOX_CREATE_TOKEN=tok3n create e >/dev/null 2>"$T/old.err"
ok $? "the old AIRLOX_CREATE_TOKEN still works"
like "$(cat "$T/old.err")" 'AIRLOX_CREATE_TOKEN is deprecated.*AIRLOX_CREATION_TOKEN' \
    "with a warning that names the new one"
like "$("$AIRLOX" session create --help)" '--creation-token TOKEN' \
    "session create --help shows --creation-token"
export AIRLOX_CREATION_TOKEN=tok3n

# The relay's maximum lifetime, named.
create f --ttl 30d >/dev/null 2>"$T/long.err"
ok $([ $? -ne 0 ] && echo 0 || echo 1) "a lifetime over the relay's maximum: refused"
like "$(cat "$T/long.err")" "the relay keeps a session at most 2d: give --ttl 2d or less" \
    "the message names the maximum and the option"

# A session that asked for no expiry: the relay cut it to its 24 h.
XDG_CACHE_HOME="$T/c-g" "$AIRLOX" --json session create --ttl never \
    >"$T/never.json" || skip_all "session create failed"
OWNER=$(json_get "$T/never.json" 'j["invites"]["owner"]')
rexp=$(json_get "$T/never.json" 'j["relay_expires"]')
ok $([ "${rexp:-0}" -gt 0 ] && echo 0 || echo 1) "the relay set its own expiry ($rexp)"
INV=$OWNER ax g --json session show >"$T/show.json"
is "$(json_get "$T/show.json" 'j["expires"]')" "$rexp" "session show --json: the relay's expiry"
is "$(json_get "$T/show.json" 'j["manifest_expires"]')" 0 "and what the manifest asked (never)"
INV=$OWNER ax g session show >"$T/show.txt"
like "$(grep '^expires' "$T/show.txt")" "^expires   [0-9]{4}-.*the relay's limit" \
    "session show: a date, not never, and whose limit it is"
lacks "$(grep '^expires' "$T/show.txt")" "never" "never is not claimed"
create n --ttl never >"$T/never.txt"
like "$(grep '^  expires' "$T/never.txt")" \
    "^  expires +[0-9]{4}-.* \\(the relay's limit; asked for never\\)\$" \
    "session create: the relay's expiry, not never"
like "$(grep '^limits' "$T/show.txt")" 'items up to [0-9]+ MiB, [0-9]+ MiB in all' \
    "sizes in MiB"

# Sizes in session create's summary.
create h --item-max 25M >"$T/h.out"
like "$(cat "$T/h.out")" 'largest item  25 MiB' "session create prints 25 MiB, not 26214400 bytes"
# Sizes and durations by the one rule of airlox(7), as the relay reads them.
create h2 --item-max 25m --session-max 1g --ttl 2h >"$T/h2.out"
like "$(cat "$T/h2.out")" 'largest item  25 MiB' "--item-max 25m: a lower-case unit"
create h4 --ttl 1h30m >"$T/h4.out" 2>&1
is $? 2 "--ttl 1h30m: not a duration (one unit): usage error"
create h5 --ttl 010m >"$T/h5.out" 2>&1
is $? 2 "--ttl 010m: a leading zero: usage error"
# A job's time limit is a duration too, up to 30 days.
create h6 --mode execute --timeout 10m >"$T/h6.out" 2>&1
like "$(cat "$T/h6.out")" 'job timeout +600 s' "--timeout 10m: 600 s"
create h7 --mode execute --timeout 31d >"$T/h7.out" 2>&1
is $? 2 "--timeout 31d: over 30 days: usage error"
like "$(cat "$T/h7.out")" '--timeout: a job.s time limit is from 1s to 30d: 31d' \
    "naming the option and its range"
create h8 --mode execute --timeout never >"$T/h8.out" 2>&1
is $? 2 "--timeout never: a job's time limit is never endless"
SENDER=$(json_get "$T/never.json" 'j["invites"]["sender"]')
truncate -s 26214401 "$T/big.bin"
INV=$SENDER ax s send file "$T/big.bin" >/dev/null 2>"$T/big.err"
like "$(cat "$T/big.err")" \
    'the item is 25\.0 MiB \(26214401 bytes\), more than this session.s largest item, 25 MiB' \
    "a file over the largest item: both sizes in MiB"
python3 -c 'print("x" * 70000)' >"$T/long.txt"
INV=$SENDER ax s send text - <"$T/long.txt" >/dev/null 2>"$T/text.err"
like "$(cat "$T/text.err")" 'the text is longer than 60 KiB; send it as a file' \
    "a text over its limit: in KiB"

# --on NAME that names no machine kept here (no invite).
mkdir -p "$T/c-m/airlox/machines/box" "$T/c-m/airlox/machines/gpu1"
chmod -R 700 "$T/c-m"
XDG_CACHE_HOME="$T/c-m" "$AIRLOX" run --on nosuch -- true >/dev/null 2>"$T/on.err"
is $? 2 "run --on nosuch: a usage error"
like "$(cat "$T/on.err")" 'no machine named nosuch; the machines kept here: box, gpu1' \
    "names the machine and lists those kept here"
lacks "$(cat "$T/on.err")" "no invite" "not 'no invite'"
XDG_CACHE_HOME="$T/c-m" "$AIRLOX" result --on nosuch -- AAAAAAAAAAAAAAAAAAAAAA \
    >/dev/null 2>"$T/ron.err"
is $? 2 "result --on nosuch: the same"
like "$(cat "$T/ron.err")" 'no machine named nosuch' "result has --on too"
XDG_CACHE_HOME="$T/c-none" "$AIRLOX" run --on box -- true >/dev/null 2>"$T/none.err"
like "$(cat "$T/none.err")" 'no machine named box: none is kept here.*machine add' \
    "with no machines kept: says so, and how to add one"

# session code: the receive command names the relay.
INV=$OWNER ax g session code sender >"$T/code.out" 2>"$T/code.err" &
CP=$!
EXTRA_PIDS="$EXTRA_PIDS $CP"
wait_for grep -q 'airlox receive' "$T/code.out"
like "$(grep 'On the other machine' "$T/code.out")" \
    "airlox receive --relay $URL [1-9][0-9]*-[a-z]+-[a-z]+\$" \
    "session code: the receive command carries --relay"
code=$(head -n 1 "$T/code.out")
XDG_CACHE_HOME="$T/c-r" AIRLOX_RELAY= "$AIRLOX" receive --relay "$URL" "$code" \
    >/dev/null 2>&1
ok $? "that command works where no relay is set"
wait $CP

# Roles with their article.
OBSERVER=$(json_get "$T/never.json" 'j["invites"]["observer"]')
INV=$OBSERVER ax olga send text hi >/dev/null 2>"$T/obs.err"
like "$(cat "$T/obs.err")" 'an observer invite cannot send text items' "an observer, not a observer"
INV=$OBSERVER ax olga session show >/dev/null
INV=$OWNER ax g session approve olga >/dev/null 2>"$T/appr.err"
is $? 2 "session approve of an observer: a usage error"
like "$(cat "$T/appr.err")" 'olga is an observer, not a runner' "an observer there too"
# A runner given another role's invite: refused before it joins, by role.
if [ -x "$RUNNERD" ]; then
	mkdir -p "$T/rs" "$T/rw"
	"$RUNNERD" --invite "$OBSERVER" --name box --sandbox process \
	    --allow-weaker-sandbox --state-dir "$T/rs" --work-root "$T/rw" \
	    >/dev/null 2>"$T/runner.err"
	ok $([ $? -ne 0 ] && echo 0 || echo 1) "a runner with an observer invite: refused"
	like "$(cat "$T/runner.err")" \
	    "the invite is the session's observer invite: a runner joins with its runner invite" \
	    "naming the role it was given and the one it needs"
	# Before it joins, the start log says where its state is, and that the
	# limits it shows are the defaults, not a session's.
	like "$(cat "$T/runner.err")" "state in $T/rs " "the runner says where its state is"
	like "$(cat "$T/runner.err")" \
	    "sandbox process, what it enforces \\(the values are the defaults; a session's own are logged once joined\\): .*wall clock: 600000 ms" \
	    "the limits at start are marked as the defaults"
	INV=$OWNER ax g session show >"$T/after.txt"
	grep -q -E ' box( |$)' "$T/after.txt"
	is $? 1 "it did not join the session"
	[ ! -e "$T/rs/invite" ]
	ok $? "nor kept the invite in its state dir"
else
	skip "a runner with an observer invite" "airlox-runnerd is not built"
fi

# --help: one "(default: ...; repeatable)".
"$AIRLOX" session create --help >"$T/help.txt"
"$AIRLOX" run --help >>"$T/help.txt"
"$AIRLOX" machine add --help >>"$T/help.txt"
lacks "$(cat "$T/help.txt")" ") (repeatable)" "no option says (default: ...) (repeatable)"
lacks "$(grep -E 'repeatable.*repeatable' "$T/help.txt")" "repeatable" \
    "none says repeatable twice"
like "$(grep -- '--tree-exclude' "$T/help.txt")" '\(default: none; repeatable\)$' \
    "(default: none; repeatable)"

# XDG_CACHE_HOME below folders that do not exist: made, 0700.
XDG_CACHE_HOME="$T/no/such/cache" AIRLOX_INVITE=$SENDER "$AIRLOX" --name xdg \
    send text "from a new cache" >/dev/null 2>"$T/xdg.err"
ok $? "a cache directory below missing folders works (send joins, keeps its key)"
is "$(stat -c %a "$T/no" "$T/no/such" "$T/no/such/cache" "$T/no/such/cache/airlox" | tr '\n' ' ')" \
    "700 700 700 700 " "every folder made is 0700"
done_testing
