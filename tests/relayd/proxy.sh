#!/bin/sh
# proxy.sh: --trust-proxy takes addresses and CIDR ranges (IPv4, IPv6),
# more than once or as a list in AIRLOX_TRUST_PROXY. The client address,
# seen through the per-address request rate limit, comes from
# X-Forwarded-For only on connections from a trusted range, read from the
# right past trusted proxies; elsewhere X-Forwarded-For is ignored.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
need curl

# GET on an unknown path is rate limited (404 until the bucket is empty).
get() {	# get XFF: prints the status
	if [ "$1" = - ]; then
		curl -s -o /dev/null -w '%{http_code}' "$URL/v1/nothing"
	else
		curl -s -o /dev/null -w '%{http_code}' \
		    -H "X-Forwarded-For: $1" "$URL/v1/nothing"
	fi
}
# after A B: two quick requests as A, then one as B, which gets 429 when
# it counts against the same address as A (the rate is 1/s with bursts
# of 2) and 404 when it counts against a fresh one.
after() {
	get "$1" >/dev/null
	get "$1" >/dev/null
	get "$2"
}

# Bad values: status 2 and a reason.
for v in 10.0.0.1/8 10.0.0.0/33 ::1/129 2001:db8::1/32 10.0.0.0/ \
    proxy.example 10.0.0.0/8x; do
	"$RELAYD" --plain-http --data "$T/bad" --trust-proxy "$v" \
	    >"$T/out" 2>&1
	st=$?
	is "$st" 2 "--trust-proxy $v is refused"
done
like "$(cat "$T/out")" 'not an IP address or CIDR range' "with a reason"

# 127.0.0.0/8 is trusted (with a second range given separately).
start_relay --plain-http --rate-limit 1 --trust-proxy 10.0.0.0/8 \
    --trust-proxy 127.0.0.0/8
is "$(after 203.0.113.1 203.0.113.1)" 429 "one forwarded client is limited"
is "$(after 203.0.113.4 203.0.113.2)" 404 "another forwarded client is not"
is "$(after 203.0.113.5 "198.51.100.7, 203.0.113.5")" 429 \
    "the nearest untrusted entry is the client"
is "$(after 203.0.113.6 "203.0.113.6, 10.9.8.7")" 429 \
    "a trusted proxy in the chain is passed over"
is "$(after 203.0.113.7 "203.0.113.7, 10.9.8.7, 203.0.113.8")" 404 \
    "but not an untrusted one after it"
is "$(after - garbage)" 429 \
    "an unparsable entry leaves the proxy's own address"
stop_relay

# The same through the environment, with IPv6 ranges in the list.
AIRLOX_TRUST_PROXY="2001:db8::/32, 127.0.0.1/32 ::1" start_relay \
    --plain-http --rate-limit 1
is "$(after 2001:db8:1::5 2001:db8:1::5)" 429 \
    "an IPv6 client behind the proxy is limited"
is "$(after 2001:db8:3::5 2001:db8:2::5)" 404 "another /64 is not"
is "$(after 2001:db8:4::5 2001:db8:4::6)" 429 "the same /64 shares a bucket"
stop_relay

# A range that does not hold the proxy: the header is ignored.
start_relay --plain-http --rate-limit 1 --trust-proxy 10.0.0.0/8 \
    --trust-proxy fd00::/8
is "$(after 203.0.113.1 203.0.113.2)" 429 \
    "untrusted peer: a different X-Forwarded-For does not get around it"
stop_relay
done_testing
