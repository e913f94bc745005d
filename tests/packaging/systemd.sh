#!/bin/sh
# systemd.sh: the units in contrib/systemd pass `systemd-analyze verify`
# against a staged install (so the programs they start exist), the relay's
# unit has the hardening it promises, and relayd.env names only variables
# airlox-relayd knows. systemd need not be running: only the tool is used.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
need make
command -v systemd-analyze >/dev/null 2>&1 ||
    skip_all "needs systemd-analyze (Debian package systemd)"

stage_install || { sed 's/^/# /' "$T/install.log"; skip_all "make install failed"; }
sysunit=$(sed -n 's/^systemdsystemunitdir = //p' "$top_builddir/Makefile" |
    sed "s|\${prefix}|$PREFIX|g")
sbindir=$(sed -n 's/^sbindir = //p' "$top_builddir/Makefile" |
    sed "s|\${exec_prefix}|$PREFIX|g; s|\${prefix}|$PREFIX|g")
sysconfdir=$(sed -n 's/^sysconfdir = //p' "$top_builddir/Makefile" |
    sed "s|\${prefix}|$PREFIX|g")
[ -n "$sysunit" ] && [ "$sysunit" != no ] ||
    skip_all "configured without a systemd unit directory"
# systemd finds units under --root in its own search path: the installed
# files go to the stage's /etc/systemd/system, whatever the prefix.
mkdir -p "$STAGE/etc/systemd/system"
cp "$STAGE$sysunit"/airlox-*.service "$STAGE/etc/systemd/system/" || exit 99
U=$STAGE/etc/systemd/system

# verify: units are read under --root, so every Exec*= program must exist
# there: ours from the stage, and kill(1) (ExecReload=) as on any system.
mkdir -p "$STAGE/bin"
for k in /bin/kill /usr/bin/kill; do
	[ -x "$k" ] && cp "$k" "$STAGE/bin/kill" && break
done
export SYSTEMD_LOG_LEVEL=notice SYSTEMD_LOG_COLOR=0
verify() {	# verify UNITFILE
	systemd-analyze verify --root="$STAGE" --man=no --generators=no \
	    --recursive-errors=no "$1" >"$T/verify.log" 2>&1
	rc=$?
	# Warnings about the host's own units or the missing manager are noise.
	grep -v -E 'is not a valid system unit|Failed to connect|/etc/systemd|/usr/lib/systemd|/lib/systemd/system/[^a]' \
	    "$T/verify.log" >"$T/verify.mine" || true
	if [ $rc -ne 0 ] || [ -s "$T/verify.mine" ]; then
		sed 's/^/#   /' "$T/verify.log"
		return 1
	fi
}

verify "$U/airlox-relayd.service"
ok $? "systemd-analyze verify airlox-relayd.service"
if [ -x "$STAGE$sbindir/airlox-runnerd" ]; then
	verify "$U/airlox-runnerd.service"
	ok $? "systemd-analyze verify airlox-runnerd.service"
else
	skip "systemd-analyze verify airlox-runnerd.service" \
	    "this tree does not build airlox-runnerd yet"
fi

# The user unit template, filled in as `airlox runner install-service`
# does. A user manager cannot be pointed at a root directory, so the unit
# names the staged program by its full path.
mkdir -p "$T/user" "$T/xdg-run"
chmod 700 "$T/xdg-run"
sed -e "s|@PATH@|$STAGE$sbindir/airlox-relayd|" -e 's|@STATE_DIR@|%S/airlox|' \
    -e 's|@ARGS@|--name "box 1" --labels gpu|' -e 's|@ENVPATH@|/usr/bin:/bin|' \
    "$top_srcdir/contrib/systemd/airlox-runner.service" \
    >"$T/user/airlox-runner.service"
! grep -q '@[A-Z_]*@' "$T/user/airlox-runner.service"
ok $? "the template's placeholders are @PATH@, @STATE_DIR@, @ARGS@ and @ENVPATH@"
XDG_RUNTIME_DIR=$T/xdg-run systemd-analyze verify --user --man=no \
    --generators=no --recursive-errors=no "$T/user/airlox-runner.service" \
    >"$T/verify.log" 2>&1 && ! grep -q 'airlox-runner.service' "$T/verify.log"
rc=$?
[ $rc -eq 0 ] || sed 's/^/#   /' "$T/verify.log"
ok $rc "systemd-analyze verify --user airlox-runner.service (template filled in)"

# A unit that starts a program missing from the stage must fail, or the
# checks above prove nothing.
sed "s|^ExecStart=.*|ExecStart=$sbindir/airlox-nonexistent|" \
    "$U/airlox-relayd.service" >"$U/airlox-broken.service"
verify "$U/airlox-broken.service" >/dev/null 2>&1
is $? 1 "verify fails for a unit whose program is missing"
rm -f "$U/airlox-broken.service"

# The relay's hardening, as promised in airlox-relayd(8) and docs/deploy.md.
unit=$U/airlox-relayd.service
for want in Type=notify WatchdogSec= DynamicUser=yes \
    StateDirectory=airlox-relayd ProtectSystem=strict ProtectHome=yes \
    PrivateTmp=yes PrivateDevices=yes NoNewPrivileges=yes \
    'RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX' \
    SystemCallFilter=@system-service 'SystemCallFilter=~@privileged @resources' \
    SystemCallArchitectures=native 'CapabilityBoundingSet=$' \
    'AmbientCapabilities=$' LimitNOFILE= MemoryDenyWriteExecute=yes \
    LockPersonality=yes RestrictNamespaces=yes RestrictRealtime=yes \
    ProtectKernelTunables=yes ProtectKernelModules=yes ProtectKernelLogs=yes \
    ProtectControlGroups=yes ProtectClock=yes ProtectHostname=yes UMask=0077 \
    "EnvironmentFile=-$sysconfdir/airlox/relayd.env"; do
	grep -q "^$want" "$unit"
	ok $? "airlox-relayd.service: $want"
done
# Both units read their settings from the configured sysconfdir.
grep -q "^EnvironmentFile=-$sysconfdir/airlox/runnerd.env\$" \
    "$U/airlox-runnerd.service"
ok $? "airlox-runnerd.service: EnvironmentFile=-$sysconfdir/airlox/runnerd.env"
# The file limit leaves room above the connection limit.
nofile=$(sed -n 's/^LimitNOFILE=//p' "$unit")
maxconn=$("$top_builddir/relayd/airlox-relayd" --help |
    sed -n 's/.*AIRLOX_MAX_CONNECTIONS; default: \([0-9]*\)].*/\1/p')
[ -n "$nofile" ] && [ -n "$maxconn" ] && [ "$nofile" -ge $((maxconn * 4)) ]
ok $? "LimitNOFILE ($nofile) is at least 4 x the default connection limit ($maxconn)"

# systemd's own view of the exposure (informational; 'OK' or better).
if systemd-analyze security --help 2>/dev/null | grep -q -- --offline; then
	systemd-analyze security --offline=yes --root="$STAGE" "$unit" \
	    >"$T/security.log" 2>&1
	score=$(sed -n 's/.*Overall exposure level for .*: \([0-9.]*\).*/\1/p' "$T/security.log")
	diag "systemd-analyze security: exposure $score (0 safest, 10 worst)"
	[ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s < 3.0) }'
	ok $? "airlox-relayd.service exposure level below 3.0 ($score)"
fi

# relayd.env: every variable is one the relay knows.
"$top_builddir/relayd/airlox-relayd" --help >"$T/help.txt" 2>&1
bad=
for v in $(sed -n 's/^#\{0,1\}\(AIRLOX_[A-Z_]*\)=.*/\1/p' "$top_srcdir/contrib/systemd/relayd.env"); do
	grep -q "\[$v;" "$T/help.txt" || bad="$bad $v"
done
is "$bad" "" "relayd.env names only variables airlox-relayd --help lists"
done_testing
