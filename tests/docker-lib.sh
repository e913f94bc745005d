# docker-lib.sh: start Debian's dockerd privately for one test (sourced,
# POSIX sh, after a lib.sh that defines $T, skip_all and diag).
#
#	docker_start [defaults]	dockerd on a socket in a private directory on
#				disk (overlay2 needs a real file system), no
#				bridge, no iptables; exports DOCKER_HOST and
#				sets DOCKER (the client matching the daemon).
#				"defaults": dockerd with its own defaults
#				(the docker0 bridge, iptables and masquerade
#				on), as most hosts run it, in a network
#				namespace of its own so that its bridge and
#				rules touch nothing of this host's or of
#				another test's daemon
#	docker_stop		stop it, unmount what it left, remove the dir
#	docker_cache_tar NAME PKG...
#				a debootstrap root fs with these packages,
#				cached as /var/cache/airlox-test/NAME.tar (made
#				once, minutes; later runs reuse it); prints
#				its path, or skips the test with the reason
#
#	docker_trap		an exit trap for a test on tests/lib.sh:
#				kills $EXTRA_PIDS, stops dockerd, then that
#				lib's cleanup
#
# Other callers call docker_stop from their own exit trap.

DOCKER=docker
[ -x /usr/bin/docker ] && DOCKER=/usr/bin/docker	# Debian's, the daemon's version
DOCKER_CACHE=${AIRLOX_TEST_CACHE:-/var/cache/airlox-test}
DOCKERD_PID=
DOCKER_DIR=

docker_start() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root to start dockerd"
	command -v dockerd >/dev/null 2>&1 ||
	    skip_all "needs dockerd (Debian package docker.io)"
	_netopts="--iptables=false --ip-masq=false --bridge=none"
	_netns=
	if [ "${1:-}" = defaults ]; then
		command -v unshare >/dev/null 2>&1 ||
		    skip_all "needs unshare(1) for the daemon's own network namespace"
		_netopts=
		_netns="unshare --net"
	fi
	DOCKER_DIR=$(mktemp -d /var/tmp/airlox-docker.XXXXXX) || exit 99
	DOCKER_HOST="unix://$DOCKER_DIR/docker.sock"
	DOCKER_CONFIG="$DOCKER_DIR/client"
	DOCKER_BUILDKIT=0
	export DOCKER_HOST DOCKER_CONFIG DOCKER_BUILDKIT
	$_netns dockerd --data-root "$DOCKER_DIR/root" \
	    --exec-root "$DOCKER_DIR/exec" --pidfile "$DOCKER_DIR/docker.pid" \
	    -H "$DOCKER_HOST" $_netopts \
	    --log-level=warn >"$T/dockerd.log" 2>&1 &
	DOCKERD_PID=$!
	_i=0
	while ! $DOCKER version >/dev/null 2>&1; do
		_i=$((_i + 1))
		if [ $_i -gt 300 ] || ! kill -0 "$DOCKERD_PID" 2>/dev/null; then
			sed 's/^/# /' "$T/dockerd.log" | tail -n 5
			skip_all "dockerd did not start here"
		fi
		sleep 0.2
	done
}

docker_stop() {
	if [ -n "$DOCKERD_PID" ]; then
		kill "$DOCKERD_PID" 2>/dev/null
		_i=0
		while kill -0 "$DOCKERD_PID" 2>/dev/null && [ $_i -lt 150 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -9 "$DOCKERD_PID" 2>/dev/null
		wait "$DOCKERD_PID" 2>/dev/null
		DOCKERD_PID=
	fi
	[ -n "$DOCKER_DIR" ] || return 0
	# Mounts a killed daemon left behind, deepest first.
	awk -v d="$DOCKER_DIR" 'index($2, d) == 1 { print $2 }' /proc/mounts |
	    sort -r | while IFS= read -r m; do umount -l "$m" 2>/dev/null; done
	rm -rf "$DOCKER_DIR"
	DOCKER_DIR=
}

docker_test_cleanup() {
	for p in $EXTRA_PIDS; do
		kill -9 "$p" 2>/dev/null
	done
	docker_stop
	cleanup
}

docker_trap() {
	trap docker_test_cleanup EXIT
}

docker_cache_tar() {
	_name=$1
	shift
	_tar=$DOCKER_CACHE/$_name.tar
	if [ ! -s "$_tar" ]; then
		command -v debootstrap >/dev/null 2>&1 ||
		    skip_all "needs debootstrap for the base image (Debian package debootstrap)"
		mkdir -p "$DOCKER_CACHE"
		# One maker at a time (another test run may want the same
		# file): the others wait for it, then find it made.
		( command -v flock >/dev/null 2>&1 && flock 9
		  [ -s "$_tar" ] ||
		    sh "$top_srcdir/contrib/docker/mkbase.sh" "$_tar" "$@" \
		    >"$T/mkbase.log" 2>&1 ) 9>"$DOCKER_CACHE/$_name.lock" || {
			sed 's/^/# /' "$T/mkbase.log" | tail -n 5 >&2
			skip_all "debootstrap could not make the base (no Debian archive?)"
		}
	fi
	echo "$_tar"
}
