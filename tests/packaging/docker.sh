#!/bin/sh
# docker.sh: the relay's container image (contrib/docker/Dockerfile) builds
# without any registry but Debian's, and works: it starts Debian's dockerd
# itself (private data root, no bridge or iptables: containers use the host
# network), imports a Debian 12 base made by debootstrap (cached under
# /var/cache/airlox-test, so later runs skip debootstrap), builds the image
# on it, checks what the image is made of, runs it on a port of our choice
# and checks /v1/health, its HEALTHCHECK, a session round trip with the real
# client of this build tree, that sessions survive a restart on the /data
# volume, a clean SIGTERM, and --ephemeral.
#
# It runs once per CI run: scripts/test.sh sets AIRLOX_SKIP_DOCKER=1 for the
# sanitizer pass. It needs root, dockerd and (on a cold cache) debootstrap
# and Debian's archive, and skips with the reason otherwise.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
[ "${AIRLOX_SKIP_DOCKER:-0}" = 1 ] &&
    skip_all "AIRLOX_SKIP_DOCKER=1 (the Docker test runs in the first pass only)"
. "$top_srcdir/tests/docker-lib.sh"
need curl python3 sha256sum tar
[ -x "$AIRLOX" ] || skip_all "client/airlox is not built"
IMAGE=airlox-relayd:test
started=$(date +%s)
phase() { diag "$(($(date +%s) - started)) s: $*"; }

# dockerd, private (tests/docker-lib.sh).
CIDS=
CLEANUP_HOOK=docker_cleanup
docker_cleanup() {
	for c in $CIDS; do
		$DOCKER rm -f "$c" >/dev/null 2>&1
	done
	docker_stop
}
docker_start
phase "dockerd is up"

# The base: debootstrap's minbase with the build packages of
# scripts/install-deps.sh, cached by the list it was made from.
pkgs=$(sed -n "/^PACKAGE_TABLE='/,/^'/p" "$top_srcdir/scripts/install-deps.sh" |
    awk '$2 == "build" { print $1 }' | sort)
key=$(printf '%s\n' bookworm $pkgs | sha256sum | cut -c 1-12)
base_tar=$DOCKER_CACHE/debian-bookworm-$key.tar
[ -s "$base_tar" ] && cached=yes || cached=no
# shellcheck disable=SC2086
base_tar=$(docker_cache_tar "debian-bookworm-$key" $pkgs) || exit 0
case $base_tar in *.tar) ;; *) echo "$base_tar"; exit 0 ;; esac
if [ $cached = no ]; then
	phase "debootstrap made $base_tar"
else
	phase "base from the cache: $base_tar"
fi
$DOCKER import "$base_tar" airlox-test/debian:bookworm >/dev/null
ok $? "docker import of the debootstrap base"

# The build context: the source tree without build directories or VCS data.
mkdir "$T/ctx"
: >"$T/ctx-exclude"
for d in "$top_srcdir"/*/ "$top_srcdir"/.*/; do	# configured build directories
	[ -f "$d/config.status" ] && echo "./$(basename "$d")" >>"$T/ctx-exclude"
done
(cd "$top_srcdir" && tar -cf - -X "$T/ctx-exclude" --exclude=./.git \
    --exclude=./autom4te.cache --exclude='*.o' --exclude='*.lo' \
    --exclude='*.la' --exclude='*.a' --exclude=.deps --exclude=.libs \
    --exclude=./config.status --exclude=./config.log --exclude=./config.h \
    --exclude=./Makefile --exclude=./libtool --exclude=./stamp-h1 .) |
    tar -C "$T/ctx" -xf -
timeout 1200 $DOCKER build --network host \
    --build-arg BASE=airlox-test/debian:bookworm -t "$IMAGE" \
    -f "$T/ctx/contrib/docker/Dockerfile" "$T/ctx" >"$T/build.log" 2>&1
rc=$?
ok $rc "docker build of contrib/docker/Dockerfile on the local base"
if [ $rc -ne 0 ]; then
	sed 's/^/#   /' "$T/build.log" | tail -n 30
	done_testing
fi
phase "image built"

# What the image is.
cfg() { $DOCKER image inspect -f "$1" "$IMAGE"; }
is "$(cfg '{{.Config.User}}')" 10001:10001 "it runs as user 10001, not root"
like "$(cfg '{{json .Config.ExposedPorts}}')" '"8080/tcp"' "it exposes 8080"
like "$(cfg '{{json .Config.Volumes}}')" '"/data"' "/data is a volume"
like "$(cfg '{{json .Config.Healthcheck.Test}}')" 'airlox-healthcheck' "it has a HEALTHCHECK"
is "$(cfg '{{json .Config.Entrypoint}}')" '["/usr/sbin/airlox-relayd"]' \
    "the entrypoint is the relay, so arguments such as --ephemeral go to it"
cid=$($DOCKER create "$IMAGE")
$DOCKER export "$cid" | tar -tf - | sed 's|^\./||; s|/$||' | sort >"$T/files.txt"
$DOCKER rm "$cid" >/dev/null
grep -qx usr/sbin/airlox-relayd "$T/files.txt"
ok $? "the image holds usr/sbin/airlox-relayd"
! grep -qE '^(usr/)?bin/(sh|bash|dash)$' "$T/files.txt"
ok $? "and no shell"
! grep -qE '^(usr/)?bin/(apt|apt-get|dpkg)$' "$T/files.txt"
ok $? "and no package manager"
nfiles=$(grep -c . "$T/files.txt")
[ "$nfiles" -lt 80 ]
ok $? "only the programs, their libraries and a few directories ($nfiles entries)"
size=$($DOCKER image inspect -f '{{.Size}}' "$IMAGE")
diag "image size: $((size / 1024)) KiB"

# Run it on a port picked here, not 8080: the health check must follow it.
free_port() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
URL=http://127.0.0.1:$port
cid=$($DOCKER run -d --network host --health-interval 1s --health-start-period 1s \
    -v airlox-test-data:/data -e AIRLOX_LISTEN="127.0.0.1:$port" \
    -e AIRLOX_RATE_LIMIT=100000 "$IMAGE")
ok $? "docker run (port $port, a named volume on /data)"
CIDS="$CIDS $cid"
health() { curl -fsS --max-time 2 "$URL/v1/health"; }
wait_for health
ok $? "GET /v1/health answers 200"
like "$(curl -sS --max-time 2 "$URL/v1/health")" '"status": *"ok"' "with status ok"
is "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$URL/v1/health/ready")" 200 \
    "GET /v1/health/ready answers 200 (the volume is writable by user 10001)"
healthy() { [ "$($DOCKER inspect -f '{{.State.Health.Status}}' "$cid")" = healthy ]; }
wait_for healthy
ok $? "docker reports the container healthy (the check found port $port)"
pid=$($DOCKER inspect -f '{{.State.Pid}}' "$cid")
is "$(stat -c %u "/proc/$pid" 2>/dev/null)" 10001 "the relay's process runs as uid 10001"
phase "container healthy"

# A session round trip through the container with the real client.
ax() {	# ax NAME INVITE ARGS...
	n=$1 inv=$2
	shift 2
	XDG_CACHE_HOME="$T/c-$n" AIRLOX_NAME=$n AIRLOX_INVITE=$inv \
	    ASAN_OPTIONS=detect_leaks=0 "$AIRLOX" "$@"
}
jget() { python3 -c 'import json, sys
j = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
print(eval(sys.argv[2]))' "$1" "$2"; }
XDG_CACHE_HOME="$T/c-alice" ASAN_OPTIONS=detect_leaks=0 "$AIRLOX" --relay "$URL" \
    session create --json --ttl 2h >"$T/create.json" 2>"$T/client.err"
ok $? "airlox session create through the container"
OWNER=$(jget "$T/create.json" 'j["invites"]["owner"]' 2>/dev/null)
SENDER=$(jget "$T/create.json" 'j["invites"]["sender"]' 2>/dev/null)
like "$SENDER" "^http://127\.0\.0\.1:$port/s/" "the invites name the container's relay"
ax bob "$SENDER" --json send text "hello through the container" >"$T/send.json" 2>>"$T/client.err"
ok $? "bob sends text"
id=$(jget "$T/send.json" 'j["id"]' 2>/dev/null)
ax alice "$OWNER" --json read "$id" >"$T/read.json" 2>>"$T/client.err"
ok $? "alice reads it"
is "$(jget "$T/read.json" 'j["text"]' 2>/dev/null)" "hello through the container" \
    "the text arrives intact"

# The data is on the volume and survives a restart of the container.
$DOCKER restart -t 20 "$cid" >/dev/null
wait_for health
ok $? "the relay answers again after docker restart"
ax alice "$OWNER" --json read "$id" >"$T/read2.json" 2>>"$T/client.err"
is "$(jget "$T/read2.json" 'j["text"]' 2>/dev/null)" "hello through the container" \
    "the session and its item survive the restart"
$DOCKER stop -t 20 "$cid" >/dev/null
is "$($DOCKER inspect -f '{{.State.ExitCode}}' "$cid")" 0 "SIGTERM (docker stop): exit 0"
$DOCKER logs "$cid" >"$T/relay.log" 2>&1
phase "round trip, restart and stop done"

# --ephemeral: arguments go to the relay; nothing lands on /data.
port=$(free_port)
URL=http://127.0.0.1:$port
cid=$($DOCKER run -d --network host -e AIRLOX_LISTEN="127.0.0.1:$port" "$IMAGE" --ephemeral)
CIDS="$CIDS $cid"
wait_for health
ok $? "docker run IMAGE --ephemeral serves"
XDG_CACHE_HOME="$T/c-carol" ASAN_OPTIONS=detect_leaks=0 "$AIRLOX" --relay "$URL" \
    session create --json >/dev/null 2>>"$T/client.err"
ok $? "and creates sessions"
mkdir "$T/eph"
$DOCKER cp "$cid:/data/." "$T/eph" >/dev/null 2>&1
[ ! -e "$T/eph/data.mdb" ]
ok $? "with nothing written to /data"
$DOCKER stop -t 20 "$cid" >/dev/null
is "$($DOCKER inspect -f '{{.State.ExitCode}}' "$cid")" 0 "and it stops cleanly"
$DOCKER volume rm -f airlox-test-data >/dev/null 2>&1
phase "done"
if [ $tap_failed -ne 0 ]; then
	sed 's/^/#   client: /' "$T/client.err" | tail -n 10
	sed 's/^/#   relay: /' "$T/relay.log" | tail -n 20
fi
done_testing
