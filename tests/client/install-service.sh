#!/bin/sh
# install-service.sh: "airlox runner install-service" keeps the invite in
# the runner's state dir (0600) and writes the user unit from
# contrib/systemd/airlox-runner.service, filled in with the options given,
# and systemd-analyze accepts it where it is installed.
. "${top_srcdir:-.}/tests/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
create_session alice --mode execute || skip_all "no session"
H=$T/home
mkdir -p "$H"
HOME=$H XDG_CONFIG_HOME= XDG_STATE_HOME= AIRLOX_INVITE=$RUNNER \
    "$AIRLOX" runner install-service --name box --labels gpu --workspace \
    --find-links /srv/wheels --no-enable >"$T/out" 2>&1
ok $? "install-service --no-enable exits 0"
U=$H/.config/systemd/user/airlox-runner.service
test -f "$U"
ok $? "the unit is written to ~/.config/systemd/user"
like "$(grep '^ExecStart=' "$U")" \
    'airlox-runnerd --state-dir "[^"]*/.local/state/airlox" "--name" "box" "--labels" "gpu" "--find-links" "/srv/wheels" "--workspace"' \
    "ExecStart runs airlox-runnerd with the options, quoted"
like "$(grep '^Environment=PATH=' "$U")" "^Environment=PATH=.+" \
    "the unit carries the PATH it was installed from"
inv=$H/.local/state/airlox/invite
is "$(stat -c %a "$inv")" 600 "the invite is kept 0600 in the state dir"
is "$(cat "$inv")" "$RUNNER" "the kept invite is the runner invite"
if command -v systemd-analyze >/dev/null 2>&1; then
	SYSTEMD_LOG_LEVEL=err systemd-analyze verify --man=no --generators=no "$U" \
	    >"$T/verify" 2>&1
	st=$?
	ok $st "systemd-analyze verify accepts the unit"
	[ $st -eq 0 ] || sed 's/^/#   /' "$T/verify"
else
	skip "systemd-analyze verify accepts the unit" "no systemd-analyze"
fi

# --launchd: the agent the macOS path writes, filled from
# contrib/launchd/org.airlox.runnerd.plist.in, is a property list that
# starts the runner with the options, each one argument.
H2=$T/home2
mkdir -p "$H2"
HOME=$H2 AIRLOX_INVITE=$RUNNER "$AIRLOX" runner install-service --name box \
    --labels 'gpu&cpu' --workspace --launchd --no-enable >"$T/out2" 2>&1
ok $? "install-service --launchd --no-enable exits 0"
P=$H2/Library/LaunchAgents/org.airlox.runnerd.plist
S="$H2/Library/Application Support/airlox"
is "$(cat "$S/invite")" "$RUNNER" "the invite is kept in Application Support/airlox"
is "$(stat -c %a "$S/invite")" 600 "... 0600"
python3 - "$P" "$S" "$(dirname "$AIRLOX")" >"$T/plist" 2>&1 <<'PY'
import plistlib, sys
p = plistlib.load(open(sys.argv[1], "rb"))
a = p["ProgramArguments"]
assert a[0].endswith("/airlox-runnerd") and a[0].startswith("/"), a[0]
assert a[1:3] == ["--state-dir", sys.argv[2]], a
assert a[3:5] == ["--sandbox", "process"], a
assert a[5:] == ["--name", "box", "--labels", "gpu&cpu", "--workspace"], a
assert p["StandardErrorPath"].endswith("/Library/Logs/airlox-runnerd.log")
print("plist ok")
PY
st=$?
ok $st "the agent is a property list running airlox-runnerd with the options"
[ $st -eq 0 ] || sed 's/^/#   /' "$T/plist"
HOME=$H2 AIRLOX_INVITE=$RUNNER "$AIRLOX" runner install-service --name box \
    --launchd --sandbox local --no-enable >"$T/out3" 2>&1
is $? 2 "--launchd refuses a sandbox other than process (usage, exit 2)"
HOME=$H2 AIRLOX_INVITE=$RUNNER "$AIRLOX" runner install-service --name box \
    --python python3 --no-enable >"$T/out4" 2>&1
is $? 2 "a relative --python is refused (usage, exit 2)"
like "$(cat "$T/out3")" "process sandbox" "... and says why"
done_testing
