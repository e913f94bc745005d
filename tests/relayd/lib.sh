# lib.sh: shared by the relayd integration tests (sourced, POSIX sh).
#
# Each test gets a private directory ($T), starts the real airlox-relayd on
# 127.0.0.1 port 0 with --port-file, waits for it by polling its health
# endpoint (never a fixed sleep), and a trap kills what it started. TAP:
# ok/nok/is print lines, done_testing prints the plan and sets the status.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
RELAYD=${RELAYD:-$top_builddir/relayd/airlox-relayd}
T=$(mktemp -d "${TMPDIR:-/tmp}/relayd-test.XXXXXX") || exit 99
tap_n=0
tap_failed=0
RELAY_PID=
EXTRA_PIDS=

cleanup() {
	for p in $RELAY_PID $EXTRA_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "needs $c"
	done
}

ok() {	# ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}

is() {	# is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got '$1', want '$2'"
	fi
}

like() {	# like TEXT PATTERN(grep -E) DESCRIPTION
	if printf '%s\n' "$1" | grep -Eq -- "$2"; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   '$1' does not match /$2/"
	fi
}

diag() {
	echo "# $*"
}

done_testing() {
	echo "1..$tap_n"
	if [ "$tap_failed" -ne 0 ]; then
		echo "# $tap_failed of $tap_n failed; relay log follows"
		[ -f "$T/relay.log" ] && sed 's/^/#   /' "$T/relay.log" | tail -40
		exit 1
	fi
	exit 0
}

# wait_for CMD...: retry for up to 10 s (100 ms apart) until CMD succeeds.
wait_for() {
	_wf_n=0
	while [ $_wf_n -lt 100 ]; do
		"$@" >/dev/null 2>&1 && return 0
		_wf_n=$((_wf_n + 1))
		sleep 0.1
	done
	return 1
}

# start_relay [ARGS...]: plain HTTP on 127.0.0.1:0 unless ARGS say more;
# sets RELAY_PID, ADDR (host:port) and URL.
start_relay() {
	rm -f "$T/port"
	"$RELAYD" --listen 127.0.0.1:0 --port-file "$T/port" \
	    ${RELAY_DATA_ARG-"--data=$T/data"} "$@" >>"$T/relay.log" 2>&1 &
	RELAY_PID=$!
	if ! wait_for test -s "$T/port"; then
		diag "relay did not write its port file"
		return 1
	fi
	ADDR=$(head -n 1 "$T/port")
	URL=${SCHEME:-http}://$ADDR
	wait_for curl -fsS $CURL_TLS "$URL/v1/health"
}

# stop_relay [SIGNAL]: signal and wait; sets RELAY_STATUS.
stop_relay() {
	kill -"${1:-TERM}" "$RELAY_PID" 2>/dev/null
	wait "$RELAY_PID"
	RELAY_STATUS=$?
	RELAY_PID=
}

# http METHOD PATH [curl args]: prints "STATUS BODY" on one line.
http() {
	m=$1
	p=$2
	shift 2
	curl -sS $CURL_TLS -o "$T/body" -w '%{http_code}' -X "$m" "$@" \
	    "$URL$p" >"$T/status" 2>"$T/curl.err"
	printf '%s %s\n' "$(cat "$T/status")" "$(cat "$T/body" 2>/dev/null)"
}

# call WHO METHOD PATH BODYFILE|- [curl args]: a request signed by
# participant WHO of the relay-cli session directory $S ($CLI signs).
call() {
	_who=$1 _m=$2 _p=$3 _b=$4
	shift 4
	_auth=$("$CLI" auth "$S" "$_who" "$_m" "$_p" "$_b" "$ADDR") || return 1
	if [ "$_b" = - ]; then
		http "$_m" "$_p" -H "Authorization: $_auth" "$@"
	else
		http "$_m" "$_p" -H "Authorization: $_auth" --data-binary @"$_b" "$@"
	fi
}
