#!/bin/sh
# layering.sh: the walls between the programs hold. The runner and the
# test tools speak to the relay through the relay client library
# (session/alxs.h), never through the airlox client's files: nothing under
# runnerd/ or tests/runnerd/ includes a client/ header, and no Makefile
# fragment of theirs names a client/ file. The library itself includes
# nothing of the client's, never prints, never exits and reads no
# environment (its settings come in struct alxs_conf).
. "${top_srcdir:-.}/tests/packaging/lib.sh"
S=$top_srcdir

# The client's headers, by the names an #include gives them.
ls "$S"/client/*.h | sed 's|.*/||' >"$T/client-headers"
echo runner-unit.h >>"$T/client-headers"
echo runner-plist.h >>"$T/client-headers"
[ -s "$T/client-headers" ]
ok $? "client/ has headers to look for"

# includes_client FILE...: the #include lines naming a client header.
includes_client() {
	grep -H -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" |
	    while IFS= read -r line; do
		h=${line#*\"}
		h=${h%%\"*}
		case $h in client/*) echo "$line"; continue ;; esac
		if grep -qxF "${h##*/}" "$T/client-headers"; then
			echo "$line"
		fi
	done
}

bad=$(includes_client "$S"/runnerd/*.c "$S"/runnerd/*.h)
is "$bad" "" "no file under runnerd/ includes a client/ header"
bad=$(includes_client "$S"/tests/runnerd/*.c)
is "$bad" "" "nor does a test tool of the runner's (tests/runnerd/)"
bad=$(includes_client "$S"/session/*.c "$S"/session/*.h)
is "$bad" "" "nor the relay client library (session/)"

bad=$(grep -n 'client/\|top_srcdir)/client' "$S"/runnerd/*.inc 2>/dev/null)
is "$bad" "" "runnerd/'s Makefile fragments name no client/ file or folder"
bad=$(grep -n 'client/\|top_srcdir)/client' "$S"/session/Makefile.inc)
is "$bad" "" "session/Makefile.inc names none either"
# The sources of every test tool of tests/runnerd/, in whatever fragment.
bad=$(cat "$S"/*/*.inc "$S"/*/*/*.inc "$S"/Makefile.am 2>/dev/null | awk '
	/^tests_runnerd_[a-z_]*_SOURCES[[:space:]]*[+]?=/ { on = 1 }
	on { print }
	on && !/\\$/ { on = 0 }' | grep 'client/')
is "$bad" "" "no test tool of the runner's compiles a client/ file"

# The library prints nothing, exits never, reads no environment: what it
# has to say is returned (alxs_error()) or handed to the settings'
# callbacks. Comments and strings aside, no call does otherwise.
calls='(^|[^a-z_])(printf|vprintf|fprintf|puts|fputs|putchar|perror|exit|_exit|abort|err|errx|warn|warnx|getenv|secure_getenv|setenv|unsetenv|out_[a-z_]+|log_[a-z_]+|fatal|fatalx)[[:space:]]*\('
bad=$(for f in "$S"/session/*.c; do
	# Drop /* */ comments and string literals before looking.
	sed -e 's|/\*.*\*/||g' -e '/\/\*/,/\*\//d' -e 's/"[^"]*"/""/g' "$f" |
	    grep -n -E "$calls" | sed "s|^|${f##*/}:|"
done)
is "$bad" "" "session/ calls nothing that prints, exits or reads the environment"
bad=$(grep -n -E '(^|[^a-z_])(stdout|stderr)([^a-z_]|$)' "$S"/session/*.c |
    grep -v '^[^:]*:[0-9]*:[[:space:]]*\*')
is "$bad" "" "and names neither stdout nor stderr"

bad=$(grep -n 'XDG_CACHE_HOME' "$S"/runnerd/*.c)
is "$bad" "" "the runner names its key store in the settings, not by moving XDG_CACHE_HOME"

# The built daemon holds none of the client's terminal code.
if command -v nm >/dev/null 2>&1 && [ -x "$RUNNERD" ]; then
	nm "$RUNNERD" 2>/dev/null | awk '$2 ~ /^[TtDdBb]$/ { print $3 }' \
	    >"$T/runnerd-syms"
	if [ -s "$T/runnerd-syms" ]; then
		bad=$(grep -E '^(out_[a-z_]+|item_show|show_[a-z_]+|exec_run|csess_open|csess_fail)$' \
		    "$T/runnerd-syms" | paste -s -d ' ' -)
		is "$bad" "" "airlox-runnerd has no client function (out_*, show_*, exec_run)"
		grep -qx alxs_open "$T/runnerd-syms"
		ok $? "airlox-runnerd opens its session with the library (alxs_open)"
	else
		skip "airlox-runnerd is stripped: its symbols cannot be read"
		skip "airlox-runnerd is stripped: its symbols cannot be read"
	fi
else
	skip "no nm, or airlox-runnerd is not built"
	skip "no nm, or airlox-runnerd is not built"
fi

done_testing
