#!/bin/sh
# damage.sh: the storage damage matrix. A database of six sessions (text
# items, and items of one chunk) is damaged in ten ways: truncated to
# half, each meta page zeroed, both zeroed, 64 pages zeroed in the middle,
# 64 pages of record data zeroed, 200 bytes flipped, one item's index key
# moved to another session's (the record sits where it was, out of order,
# and may send LMDB's search for its neighbours astray), the name of the
# sessions database changed in LMDB's catalogue (the relay must not make
# an empty one in its place and answer every session 404), emptied. For
# each: airlox-relayd --check says it is damaged (exit 1) or unusable (2);
# the relay starts on it and stays up whatever it reads (damage.py reads
# every session whole: every answer is a success or 500 storage_error,
# never a client blamed with a 4xx, never a record that is there answered
# 404, never a dropped connection), logs the damage, and exits 0 on
# SIGTERM (not on a signal of its own). A damaged meta page is rewritten
# from the other (one transaction older at most) and nothing read is
# damaged. Where the damage is in records, the other sessions are still
# served whole, and --salvage copies them into a new database that
# --check finds whole and a relay serves.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
PY="python3 $top_srcdir/tests/relayd/damage.py"
mkdir -p "$T/build"

RELAY_DATA_ARG="--data=$T/base" start_relay --plain-http --rate-limit 100000
ok $? "relay starts"
$PY build "$ADDR" "$CLI" "$T/build" 6 8
ok $? "six sessions, each with 10 items, two of them with a chunk"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
"$RELAYD" --check --data "$T/base" >"$T/check.out" 2>&1
is "$?" 0 "--check: the database is whole ($(tail -n 1 "$T/check.out"))"

for c in truncate meta0 meta1 metas zero64 zerodata flip200 sidkey dbname \
    empty; do
	rm -rf "$T/d"
	cp -a "$T/base" "$T/d"
	h=$($PY harm "$c" "$T/d" 7 "$T/build")
	"$RELAYD" --check --data "$T/d" >"$T/check.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || [ "$rc" = 2 ]
	ok $? "$c: --check finds it ($rc: $(tail -n 1 "$T/check.out"))"
	n0=$(wc -l <"$T/relay.log")
	RELAY_DATA_ARG="--data=$T/d" start_relay --plain-http \
	    --rate-limit 100000
	ok $? "$c: the relay starts on it ($h)"
	r=$($PY read "$ADDR" "$CLI" "$T/build")
	ok $? "$c: every answer a success or storage_error: $(echo $r)"
	kill -0 "$RELAY_PID" 2>/dev/null
	ok $? "$c: the relay is still up"
	log=$(tail -n +"$((n0 + 1))" "$T/relay.log")
	case $c in
	meta0|meta1)
		# The other page may be one transaction older: its last
		# writes lost, but nothing read is damaged.
		lacks "$r" "500" "$c: the meta page is rewritten: no storage error"
		has "$log" "was damaged; rewritten from meta page" "$c: logged" ;;
	*)
		like "$log" "store: (the database in .* is damaged|session .* is damaged|a damaged record)" \
		    "$c: the damage is logged" ;;
	esac
	stop_relay TERM
	is "$RELAY_STATUS" 0 "$c: SIGTERM: exit status 0"
	[ "$c" = zerodata ] || continue
	like "$r" "sessions whole: [1-9]" "zerodata: the other sessions are served whole"
	rm -rf "$T/salvaged"
	"$RELAYD" --salvage "$T/salvaged" --data "$T/d" >"$T/salvage.out" 2>&1
	is "$?" 1 "zerodata: --salvage leaves the damaged sessions out ($(tail -n 1 "$T/salvage.out"))"
	"$RELAYD" --check --data "$T/salvaged" >"$T/check.out" 2>&1
	is "$?" 0 "zerodata: the salvaged database is whole ($(tail -n 1 "$T/check.out"))"
	RELAY_DATA_ARG="--data=$T/salvaged" start_relay --plain-http \
	    --rate-limit 100000
	r2=$($PY read "$ADDR" "$CLI" "$T/build" --missing-ok)
	ok $? "zerodata: a relay on the salvaged database: $(echo $r2)"
	like "$r2" "sessions whole: [1-9]" \
	    "zerodata: it serves the sessions it holds whole"
	stop_relay TERM
	is "$RELAY_STATUS" 0 "zerodata: SIGTERM: exit status 0"
done
done_testing
