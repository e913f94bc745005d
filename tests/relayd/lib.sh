# lib.sh: shared by the relayd integration tests (sourced, POSIX sh).
#
# Each test gets a private directory ($T), starts the real airlox-relayd on
# 127.0.0.1 port 0 with --port-file, waits for it by polling its health
# endpoint (never a fixed sleep), and a trap kills what it started. TAP:
# tests/tap.sh prints the results, done_testing the plan and the status.

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
RELAYD=${RELAYD:-$top_builddir/relayd/airlox-relayd}
T=$(mktemp -d "${TMPDIR:-/tmp}/relayd-test.XXXXXX") || exit 99
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

. "$top_srcdir/tests/tap.sh"

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

# new_session [relay-cli create args after DIR]: a session made by relay-cli
# in $S (3600 s unless given) and created on the relay; sets sid, and r to
# the relay's answer.
new_session() {
	[ $# -gt 0 ] || set -- 3600
	sid=$("$CLI" create "$S" "$@")
	r=$(http POST /v1/sessions --data-binary @"$S/manifest.json")
}

# join WHO:ROLE...: a certificate for each, joined with a request it signs;
# r is the last answer, and a join that is not 201 is shown as a diag.
join() {
	for _jw in "$@"; do
		"$CLI" cert "$S" "${_jw%%:*}" "${_jw#*:}"
		r=$(call "${_jw%%:*}" POST "/v1/sessions/$sid/participants" \
		    "$S/${_jw%%:*}.cert")
		case $r in 201*) ;; *) diag "join ${_jw%%:*}: $r" ;; esac
	done
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
