#!/bin/sh
# lifecycle.sh: --ephemeral keeps nothing (its directory is gone at exit),
# a persistent --data directory keeps its database, readiness fails below
# the disk watermark while liveness stays 200, SIGTERM and SIGINT exit 0,
# and a data directory that cannot be made stops the start with status 1.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl

# --ephemeral: where is the directory? The log says.
RELAY_DATA_ARG= TMPDIR=$T start_relay --plain-http --ephemeral
ok $? "relay starts with --ephemeral"
dir=$(sed -n 's/.*ephemeral: data in \([^ ,]*\),.*/\1/p' "$T/relay.log")
like "$dir" "^$T/airlox-relayd\." "the private directory is under TMPDIR"
test -f "$dir/data.mdb"
ok $? "the database lives there while running"
r=$(http GET /v1/health/ready)
like "$r" '^200 ' "ready with an ephemeral store"
stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
test ! -e "$dir"
ok $? "the ephemeral directory is removed at exit"

# Persistent: the database stays.
start_relay --plain-http
stop_relay INT
is "$RELAY_STATUS" 0 "SIGINT: exit status 0"
test -f "$T/data/data.mdb"
ok $? "a --data directory keeps its database after exit"
test ! -e "$T/data/.ready-probe"
ok $? "the readiness probe file is not left behind"

# Watermark far above any disk: not ready, but alive and reading.
start_relay --plain-http --disk-watermark 64T
ok $? "relay starts with a 64T watermark"
r=$(http GET /v1/health/ready)
like "$r" '^503 \{"error":"not_ready","message":"free space [0-9]+\.[0-9] MiB is below the watermark of [0-9]+\.[0-9] MiB \(--disk-watermark\)' \
    "ready is 503 not_ready below the watermark"
r=$(http GET /v1/health/live)
like "$r" '^200 \{"status":"live"' "live is still 200"
r=$(http GET /v1/health)
like "$r" '^200 \{"status":"ok"' "health is still 200"
stop_relay TERM

# Environment variables set options; flags override them.
AIRLOX_DISK_WATERMARK=64T start_relay --plain-http
r=$(http GET /v1/health/ready)
like "$r" '^503 ' "AIRLOX_DISK_WATERMARK sets the watermark"
stop_relay TERM
AIRLOX_DISK_WATERMARK=64T start_relay --plain-http --disk-watermark 0
r=$(http GET /v1/health/ready)
like "$r" '^200 ' "a flag overrides its environment variable"
stop_relay TERM

# A data directory that cannot be made.
"$RELAYD" --plain-http --listen 127.0.0.1:0 --data /proc/no/such/dir \
    >"$T/bad.log" 2>&1
is $? 1 "an unusable data directory stops the start (status 1)"
like "$(cat "$T/bad.log")" 'fatal: data directory /proc/no/such/dir' \
    "and says why"
done_testing
