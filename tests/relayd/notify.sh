#!/bin/sh
# notify.sh: the service manager protocol against a fake NOTIFY_SOCKET:
# READY=1 once listening, STATUS=, WATCHDOG=1 at half of WATCHDOG_USEC, and
# STOPPING=1 then exit 0 on SIGTERM. Without NOTIFY_SOCKET nothing is sent
# and the relay runs the same (no systemd needed).
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3

python3 "$top_srcdir/tests/relayd/notify-listen.py" "$T/notify.sock" \
    "$T/notify.out" &
EXTRA_PIDS=$!
wait_for grep -q LISTENING=1 "$T/notify.out"
ok $? "fake notify socket listening"

NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=400000 start_relay --plain-http
ok $? "relay starts with NOTIFY_SOCKET and WATCHDOG_USEC set"
wait_for grep -q '^READY=1$' "$T/notify.out"
ok $? "READY=1 received"
like "$(grep '^STATUS=' "$T/notify.out" | head -n 1)" '^STATUS=serving' \
    "a STATUS= line"
like "$(grep '^MAINPID=' "$T/notify.out")" "^MAINPID=$RELAY_PID\$" \
    "MAINPID is the relay"
# 400 ms watchdog: pings every 200 ms; wait for at least three.
wait_for sh -c "[ \$(grep -c '^WATCHDOG=1\$' '$T/notify.out') -ge 3 ]"
ok $? "WATCHDOG=1 sent repeatedly at half the interval"
r=$(http GET /v1/health)
like "$r" '^200 ' "serving while notifying"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
wait_for grep -q '^STOPPING=1$' "$T/notify.out"
ok $? "STOPPING=1 received at SIGTERM"

# WATCHDOG_PID naming another process: no watchdog pings.
: >"$T/notify.out"
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=200000 WATCHDOG_PID=1 \
    start_relay --plain-http
wait_for grep -q '^READY=1$' "$T/notify.out"
ok $? "READY=1 again"
# Checking for an absence needs a window: 5 intervals of 100 ms.
sleep 0.5
stop_relay TERM
is "$(grep -c '^WATCHDOG=1$' "$T/notify.out")" 0 \
    "no watchdog pings when WATCHDOG_PID names another process"

# No NOTIFY_SOCKET: still starts and stops cleanly.
unset NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
start_relay --plain-http
ok $? "without NOTIFY_SOCKET the relay runs the same"
stop_relay TERM
is "$RELAY_STATUS" 0 "and exits 0"
done_testing
