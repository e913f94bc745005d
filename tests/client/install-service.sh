#!/bin/sh
# install-service.sh: "airlox runner install-service" keeps the invite in
# the runner's state dir (0600) and writes the user unit from
# contrib/systemd/airlox-runner.service, filled in with the options given,
# and systemd-analyze accepts it where it is installed.
. "${top_srcdir:-.}/tests/client/lib.sh"
need python3
start_relay || skip_all "the relay did not start"
create_session alice --mode execute || skip_all "no session"
H=$T/home
mkdir -p "$H"
HOME=$H XDG_CONFIG_HOME= XDG_STATE_HOME= AIRLOX_INVITE=$RUNNER \
    "$AIRLOX" runner install-service --name box --labels gpu --workspace \
    --no-enable >"$T/out" 2>&1
ok $? "install-service --no-enable exits 0"
U=$H/.config/systemd/user/airlox-runner.service
test -f "$U"
ok $? "the unit is written to ~/.config/systemd/user"
like "$(grep '^ExecStart=' "$U")" \
    'airlox-runnerd --state-dir "[^"]*/.local/state/airlox" "--name" "box" "--labels" "gpu" "--workspace"' \
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
done_testing
