# lib.sh: what the relayd integration tests share beyond tests/lib.sh
# (sourced, POSIX sh): raw HTTP requests, and sessions, certificates and
# signatures made by tests/relayd/relay-cli ($CLI) in $S. Its tests give
# the relay every option they mean (RELAY_ARGS is empty here).

RELAY_ARGS=
. "${top_srcdir:-.}/tests/lib.sh"

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
