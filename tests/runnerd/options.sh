#!/bin/sh
# options.sh: airlox-runnerd reads every setting by the one table
# (common/util/runopt.c), from wherever it comes: a value its kind refuses
# is an error naming it (status 2, before anything starts), on the command
# line, in the environment and in the configuration file alike; a variable
# the command line overrides is not read. The client's runner commands take
# the runner's own options.
. "${top_srcdir:-.}/tests/packaging/lib.sh"

# refused WHAT MESSAGE CMD...: CMD exits 2 and says MESSAGE.
refused() {
	what=$1 msg=$2
	shift 2
	ASAN_OPTIONS=detect_leaks=0 "$@" >"$T/out" 2>&1
	is $? 2 "$what: refused (status 2)"
	has "$(cat "$T/out")" "$msg" "... naming it"
}

refused "--log-level bogus" "--log-level bogus: expected warn, info or debug" \
    "$RUNNERD" --log-level bogus --version
"$RUNNERD" --log-level debug --version >"$T/out" 2>&1
is $? 0 "--log-level debug is taken"
refused "--concurrency 65" "--concurrency 65: expected a number from 1 to 64" \
    "$RUNNERD" --concurrency 65 --version
refused "--sandbox none" "--sandbox none: expected one of local, process, docker" \
    "$RUNNERD" --sandbox none --version
refused "AIRLOX_NAME='Box 1'" "AIRLOX_NAME=Box 1: expected a runner name" \
    env AIRLOX_NAME='Box 1' "$RUNNERD" --version
AIRLOX_NAME='Box 1' "$RUNNERD" --name box --version >"$T/out" 2>&1
is $? 0 "a variable the command line overrides is not read"

printf 'NAME=box\nLOG_LEVEL=bogus\n' >"$T/runner.conf"
chmod 600 "$T/runner.conf"
refused "LOG_LEVEL=bogus in the file" "runner.conf:2: LOG_LEVEL: expected warn, info or debug" \
    "$RUNNERD" --config "$T/runner.conf" --version
printf 'NAME=box\nLOG_LEVEL=warn\nCONCURRENCY=2\n' >"$T/runner.conf"
"$RUNNERD" --config "$T/runner.conf" --version >"$T/out" 2>&1
is $? 0 "a good file is taken"

# The client's runner commands: the runner's options, with its metavariables.
"$RUNNERD" --help >"$T/runnerd.help" 2>&1
for cmd in join serve verify install-service; do
	ASAN_OPTIONS=detect_leaks=0 "$AIRLOX" runner $cmd --help >"$T/help" 2>&1
	sed -n '/^Options:/,/^$/p' "$T/help" | grep -Eo '^  --[a-z-]+( [^ ]+)?' |
	    sed 's/^  //' >"$T/opts"
	n=$(grep -c . "$T/opts")
	bad=$(while read -r flag arg; do
		case "$cmd:$flag" in install-service:--launchd|install-service:--no-enable|\
		    install-service:--state-dir) continue ;;
		esac
		grep -Eq -- "^  $flag${arg:+ $arg}( |\$)" "$T/runnerd.help" || echo "$flag $arg"
	done <"$T/opts")
	[ "$n" -ge 3 ] && [ -z "$bad" ]
	ok $? "airlox runner $cmd takes $n options, each the runner's (not: ${bad:-none})"
done
done_testing
