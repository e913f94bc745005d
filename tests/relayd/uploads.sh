#!/bin/sh
# uploads.sh: many large uploads at once stay within the relay's memory
# bound. 150 item posts of 2 MiB (the largest body), each from its own
# address, all sent as fast as the relay reads: every one is answered (the
# ones past --body-memory at once, 503; meanwhile a body over
# --max-body-size is answered 413 before it is sent), the relay's peak
# resident memory grows by no more than the bodies it may hold
# (--body-memory) and its two queues (--queue-limit each) allow, plus room
# for the rest, and once the uploads are over its memory goes back
# (malloc_trim, relay-gate.c). Under
# AddressSanitizer, whose allocator keeps and pads what it frees, the peak
# bound is looser and the return of memory is not checked.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"
[ -r /proc/self/status ] || skip_all "needs /proc"
asan=no
if ldd "$RELAYD" 2>/dev/null | grep -q libasan; then
	asan=yes
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"
	export ASAN_OPTIONS
fi

kb() {	# kb FIELD: a /proc/PID/status field of the relay, in KiB
	awk -v f="$1:" '$1 == f { print $2 }' "/proc/$RELAY_PID/status"
}

start_relay --plain-http --body-memory 16M --queue-limit 4M \
    --rate-limit 100000 --max-connections-per-address 1000
ok $? "relay starts"
new_session 3600
like "$r" '^201 ' "a session"
base=$(kb VmRSS)
python3 "$top_srcdir/tests/relayd/uploads.py" "$ADDR" \
    "/v1/sessions/$sid/items" 150 2097152 >"$T/uploads.out" &
up=$!
# Meanwhile, an over-size body is refused from its length, at once.
wait_for sh -c "curl -s '$URL/v1/health' | grep -q '\"connections\":[1-9][0-9]'"
r=$(python3 "$top_srcdir/tests/relayd/intake.py" "$ADDR" early413)
ok $? "under that load, a 5 MB body is answered 413 before it is sent: $r"
wait "$up"
ok $? "150 uploads of 2 MiB at once, every one answered ($(cat "$T/uploads.out"))"
has "$(cat "$T/uploads.out")" "503" "those past the budget got 503"
peak=$(kb VmHWM)
grew=$(( (peak - base) / 1024 ))
bound=64
[ "$asan" = yes ] && bound=192
[ "$grew" -le "$bound" ]
ok $? "peak memory grew by $grew MiB of 300 MiB offered (at most $bound)"
r=$(http GET /v1/health)
like "$r" '^200 ' "still serving"
if [ "$asan" = yes ]; then
	skip "memory goes back after the burst" "AddressSanitizer's allocator"
else
	wait_for sh -c "[ \$(awk '\$1 == \"VmRSS:\" { print \$2 }' \
	    /proc/$RELAY_PID/status) -le $((base + 16 * 1024)) ]"
	ok $? "memory goes back after the burst ($(( ($(kb VmRSS) - base) / 1024 )) MiB over the start)"
fi
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
