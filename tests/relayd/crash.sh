#!/bin/sh
# crash.sh: kill -9 while four participants post as fast as the relay
# takes their items, five times (crash.py): after each restart they go on,
# posting again what was not answered; at the end every item the relay
# acknowledged (201, or 409 replayed for one whose answer the kill took)
# is in the log, exactly once, and each participant's last sequence number
# is its count of acknowledged items.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

start_relay --plain-http --rate-limit 100000
ok $? "relay starts"
new_session
like "$r" '^201 ' "a session"
join p1:sender p2:sender p3:sender p4:sender
like "$r" '^201 ' "four senders"
stop_relay TERM
r=$(python3 "$top_srcdir/tests/relayd/crash.py" "$RELAYD" "$T/data" \
    "$T/relay.log" "$CLI" "$S" "$sid" 5)
ok $? "$r"
done_testing
