#!/bin/sh
# fulldisk.sh: a full disk gives 507 and leaves no half-stored item,
# whatever --disk-watermark says. On a small tmpfs of its own (a private
# mount namespace), the relay is filled with items of one 512 KiB chunk
# until it refuses them, then with text items until it refuses those:
# every answer is 201 or 507 (never a 500), the chunk of every item it
# took is stored, a new session is refused too,
# every item taken reads complete, also after a kill -9 and a restart on
# the full disk; once space is freed the refused item and new ones are
# stored again. With --disk-watermark 0, then 2M.
if [ -z "${FULLDISK_NS:-}" ]; then
	if unshare -m true 2>/dev/null; then
		FULLDISK_NS=1 exec unshare -m sh "$0" "$@"
	fi
	echo "1..0 # SKIP needs a private mount namespace (unshare -m)"
	exit 0
fi
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl python3
CLI=$top_builddir/tests/relayd/relay-cli
PY="python3 $top_srcdir/tests/relayd/fulldisk.py"
# The tmpfs goes before the directory it is mounted on.
fulldisk_cleanup() {
	for p in $RELAY_PID $EXTRA_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	umount "$T"/disk.* 2>/dev/null
	cleanup
}
trap fulldisk_cleanup EXIT

for wm in 0 2M; do
	D=$T/disk.$wm
	mkdir -p "$D"
	mount -t tmpfs -o size=28m tmpfs "$D" 2>/dev/null ||
	    skip_all "cannot mount a tmpfs"
	# Ballast, freed later to make room.
	dd if=/dev/zero of="$D/ballast" bs=1M count=4 2>/dev/null
	S=$T/s.$wm
	mkdir -p "$S"
	RELAY_DATA_ARG="--data=$D/data" start_relay --plain-http \
	    --rate-limit 100000 --disk-watermark "$wm"
	ok $? "watermark $wm: relay starts on a 28 MiB tmpfs"
	new_session
	like "$r" '^201 ' "watermark $wm: a session"
	join bob:sender carol:sender
	r=$($PY fill "$ADDR" "$CLI" "$S" "$sid")
	ok $? "watermark $wm: filled: 201 or 507 only, no item half-stored: $(echo $r)"
	r=$($PY verify "$ADDR" "$CLI" "$S" "$sid")
	ok $? "watermark $wm: every item taken is complete: $r"
	stop_relay KILL
	RELAY_DATA_ARG="--data=$D/data" start_relay --plain-http \
	    --rate-limit 100000 --disk-watermark "$wm"
	ok $? "watermark $wm: after kill -9, it starts again on the full disk"
	r=$($PY verify "$ADDR" "$CLI" "$S" "$sid")
	ok $? "watermark $wm: and every item taken is still complete: $r"
	rm -f "$D/ballast"
	r=$($PY more "$ADDR" "$CLI" "$S" "$sid")
	ok $? "watermark $wm: with room again: $r"
	r=$($PY verify "$ADDR" "$CLI" "$S" "$sid")
	ok $? "watermark $wm: all complete: $r"
	stop_relay TERM
	is "$RELAY_STATUS" 0 "watermark $wm: SIGTERM: exit status 0"
	umount "$D"
done
done_testing
