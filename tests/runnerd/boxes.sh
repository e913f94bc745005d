# boxes.sh: the sandboxes a runner test sends its jobs to, each served by
# a runner of that name (sourced, POSIX sh, after tests/lib.sh).
#
#	boxes_init	BOXES: local (as root), process, and docker when a
#			private dockerd starts here (tests/docker-lib.sh)
#			with the cached python image; DOCKER_WHY says why
#			not. Call it before the first check: docker-lib.sh
#			skips the whole test when dockerd cannot start.
#	boxes_skip	the check that says docker was left out, if it was
#	boxes_up	a runner per box in its sandbox, joined and approved
#			(after create_session); one check each

. "$top_srcdir/tests/docker-lib.sh"
IMG=airlox-test/python:bookworm

boxes_init() {
	docker_trap
	BOXES="process"
	[ "$(id -u)" -eq 0 ] && BOXES="local $BOXES"
	DOCKER_WHY=
	if [ "$(id -u)" -ne 0 ]; then
		DOCKER_WHY="not root"
	elif [ "${AIRLOX_SKIP_DOCKER:-0}" = 1 ]; then
		DOCKER_WHY="AIRLOX_SKIP_DOCKER=1 (the Docker tests run in the first pass only)"
	elif ! command -v dockerd >/dev/null 2>&1; then
		DOCKER_WHY="no dockerd (Debian package docker.io)"
	else
		docker_start
		_base=$(docker_cache_tar base-python python3 python3-venv \
		    python3-pip) || exit 0
		case $_base in *.tar) ;; *) echo "$_base"; exit 0 ;; esac
		$DOCKER import "$_base" "$IMG" >/dev/null ||
		    DOCKER_WHY="the image could not be imported"
		[ -z "$DOCKER_WHY" ] && BOXES="$BOXES docker"
	fi
}

boxes_skip() {
	[ -z "$DOCKER_WHY" ] || skip "the docker sandbox" "$DOCKER_WHY"
}

boxes_up() {
	# The process sandbox runs jobs as another uid: $T is opened to it.
	chmod 755 "$T"
	mkdir -p "$T/home"
	for _box in $BOXES; do
		mkdir -p "$T/work-$_box"
		_extra=
		[ $_box = process ] && _extra=--allow-weaker-sandbox
		[ $_box = docker ] && _extra="--image $IMG"
		HOME=$T/home AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name "$_box" \
		    --sandbox "$_box" $_extra --state-dir "$T/state-$_box" \
		    --work-root "$T/work-$_box" >>"$T/runner-$_box.log" 2>&1 &
		EXTRA_PIDS="$EXTRA_PIDS $!"
		# The process sandbox proves no boundary: its report FAILs.
		_weaker=
		[ $_box = process ] && _weaker=--accept-weaker
		wait_for joined "$_box" && INV=$OWNER ax alice session approve \
		    $_weaker "$_box" >/dev/null
		ok $? "$_box: a runner joined and was approved"
	done
}
