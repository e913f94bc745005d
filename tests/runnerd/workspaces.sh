#!/bin/sh
# workspaces.sh: a sender's workspace on the runner belongs to its
# participant key, not to the name it gives itself. Two sender keys that
# both call themselves "root" (the default name is the OS user) never see
# or wipe each other's files. A hosted agent whose sandbox is new each time
# keeps its workspace by keeping its key: with the same AIRLOX_KEY secret,
# a fresh cache is the same participant and finds its files; another
# secret under the same name is another participant and does not.
. "${top_srcdir:-.}/tests/lib.sh"
need python3 git
[ -x "$RUNNERD" ] || skip_all "airlox-runnerd is not built"
[ "$(id -u)" -eq 0 ] || skip_all "the local sandbox's full limits need root here"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org

tap_on_fail() {
	sed 's/^/#   runner: /' "$T/runner.log" 2>/dev/null | tail -n 6
}

# as CACHE NAME [ARGS...]: airlox as the sender whose key is in cache
# CACHE (a machine, or a hosted agent's fresh sandbox), named NAME.
as() {
	c=$1 n=$2
	shift 2
	XDG_CACHE_HOME="$T/c-$c" AIRLOX_NAME=$n AIRLOX_INVITE=$SENDER \
	    "$AIRLOX" "$@"
}
# job OUT CACHE NAME CMD: run CMD in that sender's workspace (--tree from
# the current checkout); its stdout in $T/OUT.out.
job() {
	o=$1 c=$2 n=$3
	shift 3
	as "$c" "$n" --json run --on box --timeout 60 --tree -- sh -c "$1" \
	    >"$T/$o.json" 2>"$T/$o.err"
	st=$?
	python3 -c 'import json, sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j.get("event") == "result":
        sys.stdout.write(j.get("stdout", ""))' "$T/$o.json" >"$T/$o.out"
	return $st
}
checkout() {	# checkout DIR: a git checkout with one file, made current
	mkdir -p "$1" && cd "$1" || exit 1
	git init -q . && git config commit.gpgsign false
	printf 'build/\n' >.gitignore
	echo "$1" >README && git add . && git commit -q -m init
}

start_relay || skip_all "the relay did not start"
create_session alice --mode execute --kinds shell --timeout 60 --memory 512
ok $? "an execute session"
mkdir -p "$T/rwork"
AIRLOX_INVITE="$RUNNER" "$RUNNERD" --name box --state-dir "$T/rstate" \
    --work-root "$T/rwork" >>"$T/runner.log" 2>&1 &
RUNNER_PID=$!
EXTRA_PIDS="$EXTRA_PIDS $RUNNER_PID"
wait_for joined box
ok $? "the runner joined"
# (approved whatever its verify report says: that is verify.sh's matter)
INV=$OWNER ax alice session approve --accept-weaker box >/dev/null
ok $? "the owner approves it"

# Two keys, one name.
checkout "$T/one"
job a1 root1 root 'mkdir -p build && echo secret-of-the-first >build/mine.txt'
is $? 0 "the first sender called root builds in its workspace"
checkout "$T/two"
job b1 root2 root 'find . -type f | sort; cat build/mine.txt 2>/dev/null; true'
is $? 0 "a second key, also called root, runs a job"
lacks "$(cat "$T/b1.out")" "secret-of-the-first" "it does not see the first one's files"
lacks "$(cat "$T/b1.out")" "./build/mine.txt" "nor their names"
as root2 root --json run --on box --timeout 60 --tree --fresh -- true \
    >"$T/b2.json" 2>"$T/b2.err"
is $? 0 "the second one starts over (--fresh)"
cd "$T/one" || exit 1
job a2 root1 root 'cat build/mine.txt'
is $? 0 "the first one runs again"
is "$(cat "$T/a2.out")" "secret-of-the-first" "its workspace was not wiped"
n=$(ls -d "$T"/rwork/ws-* | wc -l)
is "$n" 2 "two workspaces, one per key"

# A hosted agent: a new sandbox (a fresh cache) each time, one secret.
SECRET=$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')
OTHER=$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')
checkout "$T/agent"
AIRLOX_KEY=$SECRET job k1 sandbox1 agent \
    'mkdir -p build && echo warm-from-yesterday >build/cache.txt'
is $? 0 "an agent with AIRLOX_KEY builds"
AIRLOX_KEY=$SECRET job k2 sandbox2 agent 'cat build/cache.txt'
is $? 0 "the same agent, in a new sandbox with the same AIRLOX_KEY"
is "$(cat "$T/k2.out")" "warm-from-yesterday" "finds its warm workspace"
AIRLOX_KEY=$OTHER job k3 sandbox3 agent 'cat build/cache.txt 2>/dev/null; echo end'
is $? 0 "another secret under the same name runs a job"
is "$(cat "$T/k3.out")" "end" "and does not see that workspace"
INV=$OWNER ax alice --json session show >"$T/show.json"
is "$(python3 -c 'import json, sys
j = json.loads([l for l in open(sys.argv[1]) if l.strip()][-1])
print(sum(1 for p in j["participants"] if p.get("name") == "agent"))' "$T/show.json")" 2 \
    "the owner sees two participants called agent: one per secret"
AIRLOX_KEY=short as sandbox4 agent run --on box -- true >/dev/null 2>"$T/short.err"
is $? 2 "a secret too short to be one is a usage error"
like "$(cat "$T/short.err")" "AIRLOX_KEY" "naming AIRLOX_KEY"

kill -TERM "$RUNNER_PID"
wait "$RUNNER_PID"
done_testing
