#!/bin/sh
# relay-vs-nchan.sh: airlox-relayd against nchan (nginx, one worker) on this
# machine, loopback, plain HTTP, the same client programs for both:
#  1. publish rate of ~1 KB items with 10 SSE subscribers reading
#     (bench/alx-post.c: N keep-alive connections, one request in flight
#     each, for each N in PUBLISHERS; ours pre-signed items, verified and
#     persisted durably by the relay before its 201; nchan: unsigned 1 KB
#     bodies kept in memory). With few publishers a durable server is
#     bound by its commit latency (each publisher waits for an fsync pair
#     per item), with more by its CPU: both are printed;
#  2. fan-out latency of one item to FANOUT SSE subscribers, ROUNDS items,
#     p50/p99 over all (subscriber, item) samples (bench/sse-load.py);
#  3. RSS per idle SSE connection, IDLE connections (and IDLE_TLS over
#     TLS for ours).
# Prints figures and ratios (ours/nchan), and for the publish phase the
# server's CPU time per item (from /proc/PID/stat, all threads; nginx: its
# worker; ours also by thread name: the loop, alx-verify, alx-store),
# which a busy machine disturbs far less than the rate; no
# pass/fail. A publish run whose subscribers did not all get every item
# (one dropped as a slow reader, say) prints "void" for its rate: fewer
# readers is a lighter load.
#
#	bench/relay-vs-nchan.sh [BUILDDIR]
# Environment: PUBLISHERS ("8 32 128"), TOTAL items per publish run (24000),
# SIZE (1024),
# SUBS (10), FANOUT (1000), ROUNDS (20), IDLE (10000), IDLE_TLS (10000;
# ours only, 0 skips it), PHASES ("publish fanout idle": the phases to run),
# PERF (a file: \`perf record -g\` of the relay during our publish phase),
# RELAY_ARGS (more airlox-relayd options, for experiments).
# Needs nginx with libnginx-mod-nchan, python3, cc.
set -u
SRC=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-/work/build-bench}
PUBLISHERS=${PUBLISHERS:-8 32 128}
TOTAL=${TOTAL:-24000}
SENDERS=8
SIZE=${SIZE:-1024}
SUBS=${SUBS:-10}
FANOUT=${FANOUT:-1000}
ROUNDS=${ROUNDS:-20}
IDLE=${IDLE:-10000}
IDLE_TLS=${IDLE_TLS:-10000}
PHASES=${PHASES:-publish fanout idle}
PERF=${PERF:-}
RELAY_ARGS=${RELAY_ARGS:-}
NCHAN_SO=/usr/lib/nginx/modules/ngx_nchan_module.so
CLI=$B/tests/relayd/relay-cli
RELAYD=$B/relayd/airlox-relayd
SSE="python3 $SRC/bench/sse-load.py"

for f in "$CLI" "$RELAYD" "$NCHAN_SO"; do
	[ -e "$f" ] || { echo "relay-vs-nchan: missing $f" >&2; exit 2; }
done
command -v nginx >/dev/null || { echo "relay-vs-nchan: no nginx" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/bench-relay.XXXXXX") || exit 2
PIDS=
cleanup() {
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
ulimit -n "$(ulimit -Hn)"

cc -O2 -D_GNU_SOURCE -I"$B" -I"$SRC/common" -o "$T/alx-post" \
    "$SRC/bench/alx-post.c" "$SRC/common/util/mono.c" \
    "$B/common/libairlox_static.a" \
    -lsodium -lcrypto || exit 2

wait_file() {
	n=0
	while [ ! -s "$1" ] && [ $n -lt 600 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -s "$1" ]
}
val() {	# val KEY LINE: the value of KEY=... in LINE
	printf '%s\n' "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
cpu_ticks() {	# cpu_ticks PID: user + system clock ticks of the process
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
thread_ticks() {	# thread_ticks PID: "tid name user+system ticks" per thread
	for tt in /proc/"$1"/task/*; do
		printf '%s %s %s\n' "${tt##*/}" "$(cat "$tt/comm")" \
		    "$(awk '{ print $14 + $15 }' "$tt/stat")"
	done
}
# threads_per_item FILE0 FILE1 ITEMS: microseconds per item by thread name
# (the relay names its threads: airlox-relayd is the event loop)
threads_per_item() {
	awk -v n="$3" -v hz="$(getconf CLK_TCK)" '
	    FNR == NR { t0[$1] = $3; next }
	    { d[$2] += $3 - t0[$1] }
	    END { for (k in d) printf "%s%s=%.0f", s++ ? "," : "", k,
		d[k] * 1e6 / hz / n }' "$1" "$2"
}
cpu_per_item() {	# cpu_per_item TICKS0 TICKS1 ITEMS: microseconds
	awk -v a="$1" -v b="$2" -v n="$3" -v hz="$(getconf CLK_TCK)" \
	    'BEGIN { printf "%.0f", (b - a) * 1e6 / hz / n }'
}
has() {	# has PHASE: PHASE is to run
	case " $PHASES " in *" $1 "*) return 0 ;; esac
	return 1
}
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == a && b + 0 == b && b > 0)
	    printf "%.2f", a / b; else printf "n/a" }'
}
# best RATE@N RATE N: the higher of the two rates, with its load
best() {
	awk -v cur="$1" -v r="$2" -v n="$3" 'BEGIN {
	    split(cur, c, "@");
	    if (r + 0 == r && (cur == "" || r + 0 > c[1] + 0)) print r "@" n;
	    else print cur }'
}
# whole_rate LINE N: the rate of a publish run with N publishers, or
# "void" when its subscribers did not all get every item (one was dropped
# as a slow reader, say): such a rate is not the same load.
whole_rate() {
	if [ "$(val subscribers_events "$1")" = \
	    "$((SUBS * $2 * (TOTAL / $2)))" ]; then
		val rate "$1"
	else
		echo "void(subscribers_short)"
	fi
}

echo "# machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' \
    /proc/cpuinfo | head -n 1), $(uname -r)"
echo "# load: $TOTAL items of $SIZE B by $PUBLISHERS publishers, $SUBS SSE" \
    "subscribers; fan-out $FANOUT subscribers x $ROUNDS items; $IDLE idle"

# --- airlox-relayd -------------------------------------------------------
start_relayd() {	# start_relayd DATADIR
	rm -f "$T/port"
	"$RELAYD" --listen 127.0.0.1:0 --port-file "$T/port" --plain-http \
	    --data "$1" --rate-limit 1000000 --max-connections 19000 \
	    --max-connections-per-address 19000 --max-participants 1000 \
	    --heartbeat 1h --timeout 1h \
	    --log-level warn $RELAY_ARGS >>"$T/relay.log" 2>&1 &
	RPID=$!
	PIDS="$PIDS $RPID"
	wait_file "$T/port" || { echo "relay did not start" >&2; exit 2; }
	ADDR=$(head -n 1 "$T/port")
	URL=http://$ADDR
}
start_relayd "$T/data"

# session DIR: a session with SENDERS+1 senders and observer "obs"; prints
# the sid and the last cursor.
session() {
	mkdir -p "$1"
	sid=$("$CLI" create "$1" 3600) || exit 2
	curl -fsS ${CURL_K-} -o /dev/null --data-binary @"$1/manifest.json" \
	    "$URL/v1/sessions" || exit 2
	i=0
	while [ $i -le "$SENDERS" ]; do
		join "$1" "$sid" "s$i" sender
		i=$((i + 1))
	done
	join "$1" "$sid" obs observer
	echo "$sid $cur"
}
join() {
	"$CLI" cert "$1" "$3" "$4" || exit 2
	a=$("$CLI" auth "$1" "$3" POST "/v1/sessions/$2/participants" \
	    "$1/$3.cert" "$ADDR")
	cur=$(curl -fsS ${CURL_K-} -H "Authorization: $a" --data-binary @"$1/$3.cert" \
	    "$URL/v1/sessions/$2/participants" | sed 's/.*"cursor":\([0-9]*\).*/\1/')
}

# 1. publish rate
# publish N: one run of ours with N publishers; its line in $T/pub.ours.N
publish() {
SENDERS=$1
ITEMS=$((TOTAL / $1))
set -- $(session "$T/s1.$SENDERS")
sid=$1 cur=$2
auth=$("$CLI" auth "$T/s1.$SENDERS" obs GET "/v1/sessions/$sid/stream" - \
    "$ADDR")
$SSE hold "$ADDR" "/v1/sessions/$sid/stream" "$auth" "$cur" "$SUBS" \
    "$T/hold.ready" >"$T/hold.out" &
HPID=$!
PIDS="$PIDS $HPID"
wait_file "$T/hold.ready" || exit 2
rm -f "$T/hold.ready"
names=
i=1
while [ $i -le "$SENDERS" ]; do
	names="$names s$i"
	i=$((i + 1))
done
if [ -n "$PERF" ]; then
	perf record -q -g -o "$PERF.$SENDERS" -p "$RPID" 2>/dev/null &
	PERFPID=$!
	sleep 1
fi
c0=$(cpu_ticks "$RPID")
h0=$(cpu_ticks "$HPID")
thread_ticks "$RPID" >"$T/threads0"
ours_pub=$("$T/alx-post" signed "$T/s1.$SENDERS" "$ADDR" "$ITEMS" "$SIZE" \
    $names 2>"$T/post.err")
sleep 1
if [ -n "$PERF" ]; then
	kill -INT "$PERFPID"
	wait "$PERFPID"
fi
ours_cpu=$(cpu_per_item "$c0" "$(cpu_ticks "$RPID")" $((SENDERS * ITEMS)))
thread_ticks "$RPID" >"$T/threads1"
ours_thr=$(threads_per_item "$T/threads0" "$T/threads1" $((SENDERS * ITEMS)))
ours_scpu=$(cpu_per_item "$h0" "$(cpu_ticks "$HPID")" $((SENDERS * ITEMS)))
kill -TERM "$HPID"
wait "$HPID"
ours_ev=$(cat "$T/hold.out")
sed -n '1s/^alx-post: /# /p' "$T/post.err"
echo "$ours_pub subscribers_$ours_ev cpu_us_per_item=$ours_cpu" \
    "threads_us_per_item=$ours_thr" \
    "subscribers_cpu_us_per_item=$ours_scpu" >"$T/pub.ours.$SENDERS"
echo "airlox, $SENDERS publishers: $(cat "$T/pub.ours.$SENDERS")"
}
if has publish; then
	for n in $PUBLISHERS; do
		publish "$n"
	done
fi

# 2. fan-out latency
if has fanout; then
set -- $(session "$T/s2")
sid=$1 cur=$2
mkdir -p "$T/req"
k=0
while [ $k -lt "$ROUNDS" ]; do
	"$CLI" item "$T/s2" s0 text || exit 2
	cp "$T/s2/item.json" "$T/req/body.$k"
	"$CLI" auth "$T/s2" s0 POST "/v1/sessions/$sid/items" \
	    "$T/req/body.$k" "$ADDR" >"$T/req/auth.$k"
	k=$((k + 1))
done
auth=$("$CLI" auth "$T/s2" obs GET "/v1/sessions/$sid/stream" - "$ADDR")
ours_fan=$($SSE fanout "$ADDR" "/v1/sessions/$sid/stream" "$auth" "$cur" \
    "$FANOUT" "/v1/sessions/$sid/items" "$ROUNDS" "$T/req")
echo "airlox fan-out $FANOUT: $ours_fan"
fi

# 3. idle connections, on a freshly started relay with an empty database
# (with the 24,000 items of phase 1 in it, its start-up work maps ~48 MB of
# LMDB pages in while the connections open: file pages, not per connection)
kill "$RPID"
wait "$RPID" 2>/dev/null
if has idle; then
start_relayd "$T/data3"
set -- $(session "$T/s3")
sid=$1 cur=$2
auth=$("$CLI" auth "$T/s3" obs GET "/v1/sessions/$sid/stream" - "$ADDR")
ours_mem=$($SSE mem "$RPID" "$ADDR" "/v1/sessions/$sid/stream" "$auth" \
    "$cur" "$IDLE")
echo "airlox idle: $ours_mem"
kill "$RPID"
wait "$RPID" 2>/dev/null

# 3b. the same over TLS (ours only), P-256 certificate, fresh database
if [ "$IDLE_TLS" -gt 0 ] && command -v openssl >/dev/null; then
	openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout "$T/key.pem" -subj "/CN=127.0.0.1" -days 2 \
	    -out "$T/cert.pem" 2>/dev/null
	rm -f "$T/port"
	"$RELAYD" --listen 127.0.0.1:0 --port-file "$T/port" \
	    --cert "$T/cert.pem" --key "$T/key.pem" --data "$T/data4" \
	    --rate-limit 1000000 --max-connections 19000 \
	    --max-connections-per-address 19000 --max-participants 1000 \
	    --heartbeat 1h --timeout 1h \
	    --log-level warn >>"$T/relay.log" 2>&1 &
	RPID=$!
	PIDS="$PIDS $RPID"
	wait_file "$T/port" || { echo "TLS relay did not start" >&2; exit 2; }
	ADDR=$(head -n 1 "$T/port")
	URL=https://$ADDR
	CURL_K=-k
	set -- $(session "$T/s4")
	sid=$1 cur=$2
	auth=$("$CLI" auth "$T/s4" obs GET "/v1/sessions/$sid/stream" - \
	    "$ADDR")
	ours_tls=$(SSE_TLS=1 $SSE mem "$RPID" "$ADDR" \
	    "/v1/sessions/$sid/stream" "$auth" "$cur" "$IDLE_TLS")
	echo "airlox idle TLS: $ours_tls"
	kill "$RPID"
	wait "$RPID" 2>/dev/null
fi
fi

# --- nchan ---------------------------------------------------------------
NPORT=$(python3 -c 'import socket; s = socket.socket()
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NADDR=127.0.0.1:$NPORT
mkdir -p "$T/nginx"
cat >"$T/nginx/nginx.conf" <<EOF
load_module $NCHAN_SO;
worker_processes 1;
worker_rlimit_nofile 20000;
daemon off;
pid $T/nginx/nginx.pid;
error_log $T/nginx/error.log warn;
events { worker_connections 19000; }
http {
	access_log off;
	keepalive_requests 10000000;
	keepalive_timeout 3600s;
	client_body_temp_path $T/nginx/body;
	proxy_temp_path $T/nginx/proxy;
	fastcgi_temp_path $T/nginx/fastcgi;
	uwsgi_temp_path $T/nginx/uwsgi;
	scgi_temp_path $T/nginx/scgi;
	client_body_buffer_size 64k;
	server {
		listen $NADDR;
		location = /pub {
			nchan_publisher;
			nchan_channel_id \$arg_ch;
			nchan_message_buffer_length 100;
			nchan_message_timeout 60s;
		}
		location = /sub {
			nchan_subscriber eventsource;
			nchan_channel_id \$arg_ch;
			nchan_eventsource_ping_interval 0;
			nchan_subscriber_timeout 0;
		}
	}
}
EOF
start_nginx() {
	rm -f "$T/nginx/nginx.pid"
	nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/start.err" &
	NGPID=$!
	PIDS="$PIDS $NGPID"
	wait_file "$T/nginx/nginx.pid" || { cat "$T/nginx/start.err" >&2; exit 2; }
	n=0
	while ! curl -s -o /dev/null "http://$NADDR/pub?ch=probe" &&
	    [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	WPID=$(pgrep -P "$(cat "$T/nginx/nginx.pid")" | head -n 1)
}
start_nginx

npublish() {	# npublish N: nchan with N publishers, in $T/pub.nchan.N
$SSE hold "$NADDR" "/sub?ch=c1.$1" - - "$SUBS" "$T/nhold.ready" \
    >"$T/nhold.out" &
HPID=$!
PIDS="$PIDS $HPID"
wait_file "$T/nhold.ready" || exit 2
rm -f "$T/nhold.ready"
ITEMS=$((TOTAL / $1))
c0=$(cpu_ticks "$WPID")
h0=$(cpu_ticks "$HPID")
nchan_pub=$("$T/alx-post" raw "$NADDR" "/pub?ch=c1.$1" "$ITEMS" "$SIZE" \
    "$1" nchan 2>"$T/npost.err")
sleep 1
nchan_cpu=$(cpu_per_item "$c0" "$(cpu_ticks "$WPID")" $(($1 * ITEMS)))
nchan_scpu=$(cpu_per_item "$h0" "$(cpu_ticks "$HPID")" $(($1 * ITEMS)))
kill -TERM "$HPID"
wait "$HPID"
nchan_ev=$(cat "$T/nhold.out")
echo "$nchan_pub subscribers_$nchan_ev cpu_us_per_item=$nchan_cpu" \
    "subscribers_cpu_us_per_item=$nchan_scpu" >"$T/pub.nchan.$1"
echo "nchan, $1 publishers: $(cat "$T/pub.nchan.$1")"
}
if has publish; then
	for n in $PUBLISHERS; do
		npublish "$n"
	done
fi

if has fanout; then
head -c "$SIZE" /dev/zero | tr '\0' x >"$T/nbody"
mkdir -p "$T/nreq"
k=0
while [ $k -lt "$ROUNDS" ]; do
	cp "$T/nbody" "$T/nreq/body.$k"
	k=$((k + 1))
done
nchan_fan=$($SSE fanout "$NADDR" "/sub?ch=c2" - - "$FANOUT" "/pub?ch=c2" \
    "$ROUNDS" "$T/nreq")
echo "nchan fan-out $FANOUT: $nchan_fan"
fi
if has idle; then
kill -QUIT "$NGPID"	# a fresh worker for the idle test, as for ours
wait "$NGPID" 2>/dev/null
start_nginx
nchan_mem=$($SSE mem "$WPID" "$NADDR" "/sub?ch=c3" - - "$IDLE")
echo "nchan idle: $nchan_mem"
fi

# --- summary -------------------------------------------------------------
echo
if has publish; then
for n in $PUBLISHERS; do
	o=$(cat "$T/pub.ours.$n")
	c=$(cat "$T/pub.nchan.$n")
	a=$(whole_rate "$o" "$n")
	b=$(whole_rate "$c" "$n")
	echo "publish rate, $n publishers (items/s, $SUBS subscribers):" \
	    "airlox $a, nchan $b, ratio $(ratio "$a" "$b")"
	a=$(val cpu_us_per_item "$o")
	b=$(val cpu_us_per_item "$c")
	echo "  server CPU per published item (us, all threads; the machine's" \
	    "load does not change it much): airlox $a, nchan $b," \
	    "ratio $(ratio "$a" "$b")"
	echo "  airlox by thread (us per item): $(val threads_us_per_item "$o")"
	best_o=$(best "${best_o:-}" "$(whole_rate "$o" "$n")" "$n")
	best_c=$(best "${best_c:-}" "$(whole_rate "$c" "$n")" "$n")
done
echo "publish rate, each server's best over these loads (items/s):" \
    "airlox ${best_o%%@*} (${best_o#*@} publishers)," \
    "nchan ${best_c%%@*} (${best_c#*@} publishers)," \
    "ratio $(ratio "${best_o%%@*}" "${best_c%%@*}")"
fi
if has fanout; then
a=$(val p50_ms "$ours_fan")
b=$(val p50_ms "$nchan_fan")
c=$(val p99_ms "$ours_fan")
d=$(val p99_ms "$nchan_fan")
echo "fan-out to $FANOUT (ms): p50 airlox $a nchan $b ratio $(ratio "$a" "$b");" \
    "p99 airlox $c nchan $d ratio $(ratio "$c" "$d")"
fi
has idle || exit 0
[ -n "${ours_tls-}" ] && echo "idle SSE connection over TLS ($IDLE_TLS," \
    "ours only): $(val per_conn "$ours_tls") bytes"
a=$(val per_conn "$ours_mem")
b=$(val per_conn "$nchan_mem")
echo "idle SSE connection ($IDLE, RSS delta per connection, bytes):" \
    "airlox $a, nchan $b, ratio $(ratio "$a" "$b")"
