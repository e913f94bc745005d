#!/bin/sh
# The runner as an unprivileged user: a user namespace mapping its own
# uid, the same protections, and limits it cannot enforce said so.
. "${top_srcdir:-.}/tests/runnerd/lib.sh"
need_local
[ "$(id -u)" = 0 ] || skip_all "needs root to become another user for the test"
command -v setpriv >/dev/null || skip_all "no setpriv(1)"
AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
$AS_USER test -x "$SBRUN" || skip_all "the build dir is not readable by nobody"

"$SBRUN" -E -b local >/dev/null
ok $? "as root every limit is enforced (sandbox_enforced() returns 0)"
enf=$($AS_USER "$SBRUN" -E -b local); r=$?
[ $r -ne 0 ]; ok $? "as a user, sandbox_enforced() reports limits it cannot enforce"
case $enf in
*"memory: cgroup"*)
	skip "the memory line says NOT enforced" "a cgroup is delegated to nobody"
	skip "the pids line says NOT enforced" "a cgroup is delegated to nobody";;
*)	has "$enf" "memory: NOT enforced" "the memory line says NOT enforced"
	has "$enf" "pids: NOT enforced" "the pids line says NOT enforced";;
esac

new_dirs
chown 65534:65534 "$WS" "$OUT"
RES=$(timeout 60 $AS_USER "$SBRUN" -s "$SHIM" -w "$WS" -o "$OUT" -- /bin/sh -c \
    'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/self/status; ./probe write /work/f; ./probe write /etc/f; ./probe userns; ./probe connect 1.1.1.1 53')
out=$(jget stdout)
is "$(printf %s "$out" | head -1)" 1000 "the job is uid 1000 inside"
has "$out" "CapEff:	0000000000000000" "no capabilities"
has "$out" "CapBnd:	0000000000000000" "empty bounding set"
has "$out" "Seccomp:	2" "seccomp filter"
has "$out" "write: ok" "the workspace is writable"
has "$out" "open: failed" "writes outside fail"
has "$out" "unshare: failed" "no new user namespace"
has "$out" "connect: failed" "no network"
is "$(stat -c %u "$WS/f")" 65534 "files belong to the runner's own uid on the host"

done_testing
