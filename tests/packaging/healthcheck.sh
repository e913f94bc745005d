#!/bin/sh
# healthcheck.sh: the container image's health check against the real
# relay: it finds the port in the relay's --port-file (port 0, so whatever
# port was picked), answers 0 while the relay serves, over plain HTTP and
# over TLS, and 1 for a wrong path, a stopped relay or a missing file.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
HC=$top_builddir/contrib/docker/airlox-healthcheck
[ -x "$HC" ] || skip_all "contrib/docker/airlox-healthcheck is not built"
[ -x "$RELAYD" ] || skip_all "relayd/airlox-relayd is not built"
RELAY_ARGS=		# each start below says plain HTTP or TLS
unset AIRLOX_CERT AIRLOX_PORT_FILE
mkdir -p "$T/data"

"$HC" -f "$T/port" >/dev/null 2>&1
is $? 1 "no port file: unhealthy"

start_relay --plain-http
ok $? "the relay starts on port 0 and writes its port file"
wait_for "$HC" -f "$T/port"
ok $? "healthy while the relay serves (-f)"
AIRLOX_PORT_FILE=$T/port "$HC"
ok $? "healthy, the port file named by AIRLOX_PORT_FILE"
AIRLOX_PORT_FILE=$T/port "$HC" -p /v1/health/ready
ok $? "-p /v1/health/ready"
err=$(AIRLOX_PORT_FILE=$T/port "$HC" -p /v1/no-such-thing 2>&1)
is $? 1 "a path that is not 200: unhealthy"
like "$err" "answered 404" "and it says what the relay answered"
stop_relay
AIRLOX_PORT_FILE=$T/port "$HC" -t 2 2>/dev/null
is $? 1 "the relay stopped: unhealthy"

# A wildcard address in the port file is asked on loopback.
RELAY_LISTEN=0.0.0.0:0 start_relay --plain-http
wait_for env AIRLOX_PORT_FILE="$T/port" "$HC"
ok $? "a relay on 0.0.0.0 is asked on 127.0.0.1"
stop_relay

if command -v openssl >/dev/null 2>&1 &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 -subj /CN=relay.example \
    >/dev/null 2>&1; then
	SCHEME=https CURL_TLS=-k start_relay --cert "$T/cert.pem" \
	    --key "$T/key.pem"
	ok $? "a TLS relay starts"
	AIRLOX_CERT=$T/cert.pem wait_for env AIRLOX_PORT_FILE="$T/port" "$HC"
	ok $? "healthy over TLS when AIRLOX_CERT is set"
	AIRLOX_PORT_FILE=$T/port "$HC" -t 2 2>/dev/null
	is $? 1 "plain HTTP to the TLS relay is not taken for health"
	stop_relay
else
	skip "TLS health check" "no openssl to make a certificate"
fi
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   /' "$T/relay.log" | tail -n 20
fi
done_testing
