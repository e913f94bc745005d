#!/bin/sh
# tls.sh: the client verifies the relay's TLS certificate: a private CA is
# trusted through --ca-file or AIRLOX_CA_FILE, and without it the client
# refuses (exit 6) and says how to fix it.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 openssl

openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/ca.key" -subj "/CN=airlox client test CA" -days 2 \
    -out "$T/ca.pem" 2>/dev/null &&
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$T/key.pem" -subj "/CN=127.0.0.1" -out "$T/srv.csr" \
    2>/dev/null &&
printf 'subjectAltName=IP:127.0.0.1\n' >"$T/ext" &&
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
    -set_serial 7 -days 2 -extfile "$T/ext" -out "$T/cert.pem" 2>/dev/null ||
    skip_all "openssl could not make a test CA"

SCHEME=https CURL_TLS="--cacert $T/ca.pem" RELAY_ARGS="--rate-limit 100000" \
    start_relay --cert "$T/cert.pem" --key "$T/key.pem" ||
    skip_all "the relay did not start and answer over TLS"

XDG_CACHE_HOME="$T/c-alice" "$AIRLOX" --relay "$URL" session create \
    >"$T/no-ca.out" 2>"$T/no-ca.err"
is $? 6 "an unknown CA: refused (exit 6)"
like "$(cat "$T/no-ca.err")" 'certificate of 127\.0\.0\.1:[0-9]+ does not verify.*--ca-file' \
    "and the message names the relay and --ca-file"
lacks "$(cat "$T/no-ca.err")" "refused the session" \
    "and does not say the relay refused the session (it never saw it)"

XDG_CACHE_HOME="$T/c-alice" "$AIRLOX" --relay "$URL" --ca-file "$T/ca.pem" \
    --json session create >"$T/create.json"
ok $? "with --ca-file the session is created over TLS"
SENDER=$(json_get "$T/create.json" 'j["invites"]["sender"]')
OWNER=$(json_get "$T/create.json" 'j["invites"]["owner"]')
like "$SENDER" '^https://127\.0\.0\.1:' "the invites are https links"
AIRLOX_CA_FILE="$T/ca.pem" INV=$SENDER ax bob --json send text "over TLS" \
    >"$T/s.json"
ok $? "AIRLOX_CA_FILE works as well"
AIRLOX_CA_FILE="$T/ca.pem" INV=$OWNER ax alice --json read \
    "$(json_get "$T/s.json" 'j["id"]')" >"$T/r.json"
is "$(json_get "$T/r.json" 'j["text"]')" "over TLS" "the message arrives"
INV=$OWNER ax alice read -- "$(json_get "$T/s.json" 'j["id"]')" \
    >/dev/null 2>"$T/r2.err"
is $? 6 "a reader without the CA is refused too"
done_testing
