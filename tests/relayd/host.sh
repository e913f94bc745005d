#!/bin/sh
# host.sh: a request signature binds the host it was made for, and the
# relay accepts only its own names there (relayd/relay-host.c). A read
# signed for evil.example, sent with that Host header, was served before;
# now it is 401 bad_signature. Names: --public-name (a name without a port
# matches any port); without it, the address the request came to, the TLS
# certificate's names, and the host a --trust-proxy proxy forwards.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl
CLI=$top_builddir/tests/relayd/relay-cli
S=$T/s
mkdir -p "$S"

# read WHO HOST [curl args]: GET the participant list signed for HOST.
read_as() {
	_who=$1 _h=$2
	shift 2
	_auth=$("$CLI" auth "$S" "$_who" GET "/v1/sessions/$sid/participants" - \
	    "$_h") || return 1
	http GET "/v1/sessions/$sid/participants" -H "Authorization: $_auth" "$@"
}

start_relay --plain-http --rate-limit 100000
ok $? "relay starts without --public-name"
new_session
join bob:sender
like "$(read_as bob "$ADDR")" '^200 ' \
    "a read signed for the address the relay was reached at: 200"
like "$(read_as bob evil.example -H 'Host: evil.example')" \
    '^401 \{"error":"bad_signature"' \
    "a read signed for evil.example, sent with that Host: 401 bad_signature"
like "$(read_as bob "127.0.0.1:1" -H 'Host: 127.0.0.1:1')" \
    '^401 \{"error":"bad_signature"' "another port of this address: 401"
like "$(read_as bob "[::1]:${ADDR##*:}" -H "Host: [::1]:${ADDR##*:}")" \
    '^401 \{"error":"bad_signature"' "another address on this port: 401"
like "$(read_as bob evil.example)" '^401 \{"error":"bad_signature"' \
    "signed for evil.example, sent with this relay's Host: 401"
like "$(cat "$T/relay.log")" 'signed for host evil.example was refused' \
    "the relay logs the first refusal"
stop_relay TERM

# Named: only the names count, on any port unless a port is given.
start_relay --plain-http --rate-limit 100000 --public-name relay.test \
    --public-name 'other.test:8443'
ok $? "relay starts with --public-name relay.test, other.test:8443"
like "$(read_as bob relay.test -H 'Host: relay.test')" '^200 ' \
    "signed for relay.test: 200"
like "$(read_as bob RELAY.test:8080 -H 'Host: RELAY.test:8080')" '^200 ' \
    "relay.test on a port, in another case: 200"
like "$(read_as bob other.test:8443 -H 'Host: other.test:8443')" '^200 ' \
    "other.test:8443: 200"
like "$(read_as bob other.test:9443 -H 'Host: other.test:9443')" \
    '^401 \{"error":"bad_signature"' "other.test on another port: 401"
like "$(read_as bob "$ADDR")" '^401 \{"error":"bad_signature"' \
    "the listen address is no longer a name: 401"
like "$(read_as bob relay.test.evil.example -H 'Host: relay.test.evil.example')" \
    '^401 \{"error":"bad_signature"' "a longer name that starts with it: 401"
stop_relay TERM

# Behind a trusted proxy: the host it forwards.
start_relay --plain-http --rate-limit 100000 --trust-proxy 127.0.0.1
like "$(read_as bob relay.test -H 'X-Forwarded-Host: relay.test')" '^200 ' \
    "from a trusted proxy, signed for the host it forwards: 200"
like "$(read_as bob evil.example -H 'X-Forwarded-Host: relay.test')" \
    '^401 \{"error":"bad_signature"' \
    "signed for another host than the proxy forwards: 401"
stop_relay TERM
start_relay --plain-http --rate-limit 100000 --trust-proxy 127.0.0.1 \
    --public-name relay.test
like "$(read_as bob evil.example -H 'X-Forwarded-Host: evil.example')" \
    '^401 \{"error":"bad_signature"' \
    "with --public-name, a forwarded host that is not a name: 401"
like "$(read_as bob relay.test -H 'X-Forwarded-Host: evil.example, relay.test')" \
    '^200 ' "the host the nearest proxy added counts: 200"
stop_relay TERM

# TLS without --public-name: the certificate's names.
if command -v openssl >/dev/null 2>&1 &&
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout "$T/key.pem" -subj "/CN=relay.test" \
    -addext "subjectAltName=DNS:relay.test,DNS:*.pods.test" -days 2 \
    -out "$T/cert.pem" 2>/dev/null; then
	SCHEME=https
	CURL_TLS="-k"
	start_relay --cert "$T/cert.pem" --key "$T/key.pem" --rate-limit 100000
	ok $? "relay starts with TLS for relay.test and *.pods.test"
	P=${ADDR##*:}
	like "$(read_as bob "relay.test:$P" -H "Host: relay.test:$P")" '^200 ' \
	    "signed for a name of the certificate: 200"
	like "$(read_as bob "a.pods.test:$P" -H "Host: a.pods.test:$P")" \
	    '^200 ' "and for a name its wildcard covers: 200"
	like "$(read_as bob "b.a.pods.test" -H "Host: b.a.pods.test")" \
	    '^401 \{"error":"bad_signature"' "not two labels deep: 401"
	like "$(read_as bob evil.example -H 'Host: evil.example')" \
	    '^401 \{"error":"bad_signature"' \
	    "signed for a name the certificate lacks: 401"
	like "$(read_as bob "$ADDR")" '^200 ' "the address it was reached at: 200"
	stop_relay TERM
	SCHEME=http
	CURL_TLS=
else
	skip "TLS names" "openssl could not make a certificate"
fi

timeout 60 "$RELAYD" --plain-http --listen 127.0.0.1:0 --data "$T/d2" \
    --public-name 'relay.test:99999' >"$T/bad.out" 2>&1
is $? 2 "--public-name relay.test:99999: exit status 2"
like "$(cat "$T/bad.out")" 'public-name: not a host name' "and says why"
done_testing
