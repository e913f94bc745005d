# lib.sh: the one library of the shell tests (sourced, POSIX sh). Each
# area's lib.sh (tests/relayd, tests/runnerd, tests/packaging) sources it
# and adds only what is its own; the client's and the runner's end-to-end
# tests source it directly.
#
# Each test gets a private directory ($T), starts the real airlox-relayd on
# 127.0.0.1 port 0 (--port-file), waits for it by polling /v1/health (never
# a fixed sleep), and a trap kills what it started (RELAY_PID, EXTRA_PIDS)
# and runs CLEANUP_HOOK. Participants are the real airlox binary, each with
# its own cache directory ($T/c-NAME). TAP: tests/tap.sh prints the
# results, done_testing the plan and the status.
# shellcheck disable=SC2034 # variables for the tests that source this

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
RELAYD=${RELAYD:-$top_builddir/relayd/airlox-relayd}
AIRLOX=${AIRLOX:-$top_builddir/client/airlox}
RUNNERD=${RUNNERD:-$top_builddir/runnerd/airlox-runnerd}
case $RELAYD in /*) ;; *) RELAYD=$(pwd)/$RELAYD ;; esac
case $AIRLOX in /*) ;; *) AIRLOX=$(pwd)/$AIRLOX ;; esac
case $RUNNERD in /*) ;; *) RUNNERD=$(pwd)/$RUNNERD ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/airlox-$(basename "$0" .sh).XXXXXX") ||
    exit 99
RELAY_PID=
EXTRA_PIDS=
CLEANUP_HOOK=:
: "${RELAY_ARGS=--plain-http --rate-limit 100000}"
unset AIRLOX_INVITE AIRLOX_RELAY AIRLOX_NAME AIRLOX_DESCRIPTION AIRLOX_CA_FILE
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY

cleanup() {
	$CLEANUP_HOOK
	for p in $EXTRA_PIDS $RELAY_PID; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

. "$top_srcdir/tests/tap.sh"

# done_testing: the plan; after a failure, the tail of the relay's log.
done_testing() {
	tap_plan && exit 0
	if [ -f "$T/relay.log" ]; then
		echo "# relay log follows"
		sed 's/^/#   /' "$T/relay.log" | tail -40
	fi
	exit 1
}

# wait_for CMD...: retry every 100 ms until CMD succeeds; give up after
# WAIT_S seconds (default 120: only a failing test waits that long, and a
# loaded machine may need it).
wait_for() {
	_wf_n=0
	while [ $_wf_n -lt $((${WAIT_S:-120} * 10)) ]; do
		"$@" >/dev/null 2>&1 && return 0
		_wf_n=$((_wf_n + 1))
		sleep 0.1
	done
	return 1
}

# wait_log FILE PATTERN PID: until FILE has a line matching PATTERN (grep
# BRE), or the process PID ended without writing one (a runner that gave
# up). For slow work (an image build, a verify): the bound is the test
# harness's timeout, not a guess of how long a busy machine takes.
wait_log() {
	while ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$3" 2>/dev/null || { grep -q "$2" "$1"; return; }
		sleep 0.2
	done
}

# health: the relay at $URL answers /v1/health (CURL_TLS: curl's TLS
# options, such as --cacert FILE, for a relay started with --cert).
health() {
	curl -fsS $CURL_TLS -o /dev/null "$URL/v1/health"
}

# streams N: the relay has N event streams open (a watch or listen that
# started streaming is live: what is posted from then on reaches it).
streams() {
	python3 -c 'import json, sys, urllib.request
j = json.load(urllib.request.urlopen(sys.argv[1] + "/v1/health", timeout=10))
sys.exit(0 if j["streams"] == int(sys.argv[2]) else 1)' "$URL" "$1"
}

# start_relay [ARGS...]: airlox-relayd on RELAY_LISTEN (127.0.0.1:0) with
# --port-file, its data in $T/data (RELAY_DATA_ARG replaces --data=...),
# and RELAY_ARGS (default: plain HTTP, no rate limit; tests/relayd/lib.sh
# empties it, its tests give every option) before ARGS. Waits until the
# relay answers /v1/health; sets RELAY_PID, ADDR (host:port), URL
# (SCHEME, default http) and AIRLOX_RELAY.
start_relay() {
	rm -f "$T/port"
	"$RELAYD" --listen "${RELAY_LISTEN:-127.0.0.1:0}" --port-file "$T/port" \
	    ${RELAY_DATA_ARG-"--data=$T/data"} \
	    $RELAY_ARGS "$@" \
	    >>"$T/relay.log" 2>&1 &
	RELAY_PID=$!
	if ! wait_for test -s "$T/port"; then
		diag "relay did not write its port file"
		return 1
	fi
	ADDR=$(head -n 1 "$T/port")
	URL=${SCHEME:-http}://$ADDR
	export AIRLOX_RELAY="$URL"
	wait_for health
}

# start_fixed_relay: start_relay on a port chosen once and kept ($PORT),
# so that a relay restarted on it and the same data dir is the one the
# invites name.
start_fixed_relay() {
	[ -n "$PORT" ] || PORT=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	RELAY_LISTEN=127.0.0.1:$PORT start_relay
}

# stop_relay [SIGNAL]: signal the relay and wait; sets RELAY_STATUS.
stop_relay() {
	[ -n "$RELAY_PID" ] || return 0
	kill -"${1:-TERM}" "$RELAY_PID" 2>/dev/null
	wait "$RELAY_PID"
	RELAY_STATUS=$?
	RELAY_PID=
}

# $AX NAME [ARGS...]: airlox as participant NAME (its own cache directory)
# with the invite in AIRLOX_INVITE; exec'd, so $! of "$AX ... &" is airlox.
AX=$T/ax
cat >"$AX" <<AXEOF
#!/bin/sh
n=\$1
shift
XDG_CACHE_HOME="$T/c-\$n" AIRLOX_NAME="\$n" exec "$AIRLOX" "\$@"
AXEOF
chmod +x "$AX"
# ax NAME [ARGS...]: the same with the invite in $INV.
ax() {
	AIRLOX_INVITE="$INV" "$AX" "$@"
}

# json_get FILE EXPR: evaluate a Python expression on j (the JSON object in
# FILE; with several lines, the last one).
json_get() {
	python3 -c 'import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
j = json.loads(lines[-1])
print(eval(sys.argv[2]))' "$1" "$2"
}

# json_lines FILE: 0 when every line of FILE is one JSON object.
json_lines() {
	python3 -c 'import json, sys
n = 0
for l in open(sys.argv[1]):
    if l.strip():
        assert isinstance(json.loads(l), dict)
        n += 1
assert n > 0' "$1" 2>/dev/null
}

# endpoint METHOD PATH: 0 when the relay routes it (anything but 404 with
# a method or route error); used to skip tests of missing endpoints.
has_endpoint() {
	python3 - "$URL" "$1" "$2" <<'PY'
import sys, urllib.request, urllib.error
url, m, p = sys.argv[1:]
req = urllib.request.Request(url + p, method=m, data=b"{}" if m != "GET" else None)
try:
    urllib.request.urlopen(req, timeout=5)
except urllib.error.HTTPError as e:
    body = e.read().decode(errors="replace")
    if (e.code == 404 and "no such endpoint" in body) or e.code == 405:
        sys.exit(1)
sys.exit(0)
PY
}

# joined NAME: the owner's view of alice's session (create_session) lists
# a participant called NAME; for wait_for, after a runner was started.
joined() {
	INV=$OWNER ax alice --json session show >"$T/show.json" 2>/dev/null &&
	    python3 -c 'import json,sys
j = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
sys.exit(0 if any(p.get("name") == sys.argv[2] for p in j["participants"]) else 1)' \
	    "$T/show.json" "$1"
}

# runner_up NAME [ARGS...]: airlox-runnerd NAME in the process sandbox with
# the runner invite ($RUNNER) and folders of its own under $T, started in
# the background ($RUNNER_PID) and approved by the owner ($OWNER); its log
# is $T/runner-NAME.log. The process sandbox proves no boundary, so the
# approval takes --accept-weaker; it runs jobs as another uid when root,
# which must reach their folders: $T is opened to them.
runner_up() {
	_n=$1
	shift
	chmod 755 "$T"
	mkdir -p "$T/work-$_n"
	AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name "$_n" --sandbox process \
	    --allow-weaker-sandbox --state-dir "$T/state-$_n" \
	    --work-root "$T/work-$_n" "$@" >>"$T/runner-$_n.log" 2>&1 &
	RUNNER_PID=$!
	EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
	wait_for joined "$_n" && INV=$OWNER ax alice session approve \
	    --accept-weaker "$_n" >/dev/null
}

# create_session NAME [ARGS]: session create as NAME; sets OWNER, SENDER,
# OBSERVER (and RUNNER) invites; the JSON is in $T/create.json.
create_session() {
	n=$1
	shift
	XDG_CACHE_HOME="$T/c-$n" "$AIRLOX" session create --json "$@" \
	    >"$T/create.json" || return 1
	OWNER=$(json_get "$T/create.json" 'j["invites"]["owner"]')
	SENDER=$(json_get "$T/create.json" 'j["invites"]["sender"]')
	OBSERVER=$(json_get "$T/create.json" 'j["invites"]["observer"]')
	RUNNER=$(json_get "$T/create.json" 'j["invites"].get("runner", "")')
}
