#!/bin/sh
# tls.sh: HTTPS with a test CA made here; health over TLS; SIGHUP reloads the
# certificate (a new serial is served); a broken certificate on SIGHUP keeps
# the old one; the relay refuses to start without TLS or --plain-http.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl openssl

mkcert() {	# mkcert NAME SERIAL
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/$1.key" -subj "/CN=127.0.0.1" -out "$T/$1.csr" \
	    2>/dev/null &&
	printf 'subjectAltName=IP:127.0.0.1\n' >"$T/ext" &&
	openssl x509 -req -in "$T/$1.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
	    -set_serial "$2" -days 2 -extfile "$T/ext" -out "$T/$1.pem" \
	    2>/dev/null
}

served_serial() {
	echo | openssl s_client -connect "$ADDR" -servername 127.0.0.1 \
	    2>/dev/null | openssl x509 -noout -serial 2>/dev/null |
	    sed 's/^serial=//'
}

openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/ca.key" -subj "/CN=airlox test CA" -days 2 \
    -out "$T/ca.pem" 2>/dev/null
ok $? "a test CA"
mkcert one 4097 && mkcert two 8194
ok $? "two server certificates from it"
cp "$T/one.pem" "$T/cert.pem"
cp "$T/one.key" "$T/key.pem"

"$RELAYD" --listen 127.0.0.1:0 --data "$T/data" >"$T/nocert.log" 2>&1
is $? 2 "without --cert/--key or --plain-http the relay will not start"
like "$(cat "$T/nocert.log")" "--plain-http" "and says how to choose"

SCHEME=https
CURL_TLS="--cacert $T/ca.pem"
start_relay --cert "$T/cert.pem" --key "$T/key.pem"
ok $? "relay starts with TLS and answers health over HTTPS"
r=$(http GET /v1/health)
like "$r" '^200 \{"status":"ok"' "GET /v1/health over TLS"
r=$(http GET /v1/health/ready)
like "$r" '^200 \{"status":"ready"' "GET /v1/health/ready over TLS"
r=$(http GET /nope)
like "$r" '^404 \{"error":"not_found"' "a JSON error over TLS"
is "$(served_serial)" "1001" "the first certificate is served (serial 0x1001)"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://$ADDR/v1/health")
like "$code" '^(000|400)$' "plain HTTP on the TLS port gets no answer ($code)"
code=$(curl -s -o /dev/null -w '%{http_code}' "https://$ADDR/v1/health")
is "$code" "000" "a client without the CA refuses the certificate"

cp "$T/two.pem" "$T/cert.pem"
cp "$T/two.key" "$T/key.pem"
kill -HUP "$RELAY_PID"
wait_for sh -c "grep -q 'certificate reloaded' '$T/relay.log'"
ok $? "SIGHUP reloads the certificate"
is "$(served_serial)" "2002" "the new certificate is served (serial 0x2002)"

echo "not a certificate" >"$T/cert.pem"
kill -HUP "$RELAY_PID"
wait_for sh -c "grep -q 'reload failed, keeping' '$T/relay.log'"
ok $? "a broken certificate on SIGHUP is logged"
is "$(served_serial)" "2002" "and the previous certificate stays in use"
r=$(http GET /v1/health)
like "$r" '^200 ' "still serving over TLS"

stop_relay TERM
is "$RELAY_STATUS" 0 "SIGTERM: exit status 0"
done_testing
