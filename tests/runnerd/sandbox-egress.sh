#!/bin/sh
# Network modes of real jobs: `allow` (curl through the egress proxy to
# a local TLS server mapped by the test resolver; a denied name; curl
# --noproxy '*'), `full` (the host's network), and the process backend.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local
command -v openssl >/dev/null || skip_all "no openssl"
[ -x /usr/bin/curl ] || skip_all "no curl"

mkdir -p "$T/state" && chmod 700 "$T/state" || exit 99
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" \
    -out "$T/cert.pem" -days 1 -subj /CN=allowed.test \
    -addext "subjectAltName=DNS:allowed.test" >/dev/null 2>&1 ||
    { echo "Bail out! no test cert"; exit 99; }
chmod 644 "$T/cert.pem"
openssl s_server -accept 127.0.0.1:0 -cert "$T/cert.pem" -key "$T/key.pem" \
    -www -naccept 20 > "$T/tls.out" 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null; cleanup' EXIT INT TERM
wait_for grep -q '^ACCEPT' "$T/tls.out"
SPORT=$(sed -n 's/^ACCEPT .*:\([0-9]*\)$/\1/p' "$T/tls.out")
[ -n "$SPORT" ] || { echo "Bail out! s_server"; exit 99; }

PREP='cp "$T/cert.pem" "$WS/ca.pem"'
run_job -N allow -S "$T/state" -A allowed.test \
    -H "allowed.test=+127.0.0.1:$SPORT" -- /bin/sh -c '
	curl -sS -o /dev/null -w "ALLOWED %{http_code}\n" --cacert ca.pem https://allowed.test/
	curl -sS -o /dev/null -w "DENIED %{http_connect}\n" https://denied.test/
	curl -sS --max-time 5 --noproxy "*" https://allowed.test/ || echo NOPROXY-FAILED
	curl -sS --max-time 5 --noproxy "*" https://1.1.1.1/ || echo NOPROXY-IP-FAILED
	env | grep -i proxy | sort | tr "\n" " "; echo
	ls /proc/self/fd | tr "\n" " "'
out=$(jget stdout)
has "$out" "ALLOWED 200" "allow: curl reaches an allowed name over TLS through the proxy"
has "$out" "DENIED 403" "allow: a denied name gets 403 from the proxy"
has "$out" "NOPROXY-FAILED" "allow: curl --noproxy '*' to the allowed name fails"
has "$out" "NOPROXY-IP-FAILED" "allow: curl --noproxy '*' to an IP fails"
has "$(jget stderr)" "Could not resolve host: allowed.test" "allow: without the proxy there is no DNS"
has "$out" "HTTPS_PROXY=http://127.0.0.1:3128 HTTP_PROXY=http://127.0.0.1:3128 NO_PROXY= " \
    "allow: the proxy variables are set, NO_PROXY empty"
has "$out" "0 1 2 3 " "allow: ls sees only its own fds (0-2 and its dir)"
lacks "$out" " 4 " "allow: the egress socket does not reach the job"
has "$(jget enforced)" "network: allow list through the runner's egress proxy" \
    "allow: the enforced text says how"

# Inside a tunnel to an allowed name, a ClientHello for another name (the
# classic domain fronting), one without a name, and plain bytes are
# refused and recorded; the matching hello is let through to the server.
run_job -N allow -S "$T/state" -A allowed.test -j fronting \
    -H "allowed.test=+127.0.0.1:$SPORT" -- /bin/sh -c '
	sc() { echo Q | openssl s_client -proxy 127.0.0.1:3128 \
	    -connect allowed.test:443 -CAfile ca.pem -verify_return_error "$@" 2>&1; }
	sc -servername other.test | grep -q "alert access denied" && echo FRONTED-REFUSED
	sc -noservername | grep -q "alert access denied" && echo NOSNI-REFUSED
	curl -sS -p -x http://127.0.0.1:3128 -o /dev/null -w "PLAIN %{http_code}\n" \
	    http://allowed.test:443/
	sc -servername allowed.test | grep "Verify return code"'
out=$(jget stdout)
has "$out" FRONTED-REFUSED "allow: a ClientHello for another name in a tunnel to an allowed one is refused"
has "$out" NOSNI-REFUSED "allow: a ClientHello without a server name is refused"
has "$out" "PLAIN 403" "allow: plain bytes in a tunnel to port 443 get 403"
has "$out" "Verify return code: 0 (ok)" "allow: the matching ClientHello reaches the TLS server"
log=$(grep '"job":"fronting"' "$T/state/egress/denied.log")
has "$log" '"host":"allowed.test","port":443,"method":"CONNECT","reason":"sni_mismatch","sni":"other.test"' \
    "allow: the fronting attempt is in the denied log with both names"
has "$log" '"reason":"no_sni"' "allow: the nameless hello is in the denied log"
has "$log" '"reason":"not_tls"' "allow: the plain bytes are in the denied log"
is "$(printf '%s\n' "$log" | grep -c .)" 3 "allow: three refusals, no more"
PREP=

run_job -- /bin/sh -c 'env | grep -ci proxy; cat /proc/net/dev | grep -c :'
is "$(jget stdout | tr '\n' ' ')" "0 1 " "none: no proxy variable, only lo"

run_job -N full -- /bin/sh -c 'grep -c : /proc/net/dev; test -s /etc/resolv.conf && echo RESOLV'
[ "$(jget stdout | head -1)" -gt 1 ]; ok $? "full: the host's interfaces are visible"
has "$(jget stdout)" RESOLV "full: /etc/resolv.conf is there"
has "$(jget enforced)" "network: full" "full: the enforced text says so"

BACKEND=process run_job -N allow -S "$T/state" -A allowed.test -- /bin/sh -c 'env | grep -ci proxy'
is "$(jget stdout)" 0 "process backend: no proxy variables (it isolates nothing)"

done_testing
