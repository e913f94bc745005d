#!/bin/sh
# options.sh: --help lists every option of the table with its variable and
# default; the man page documents every option and variable --help lists
# (and no other); bad options and values are refused with status 2.
. "${top_srcdir:-.}/tests/relayd/lib.sh"
MAN=$top_srcdir/man/airlox-relayd.8

"$RELAYD" --help >"$T/help" 2>&1
is $? 0 "--help exits 0"
"$RELAYD" --version >"$T/version" 2>&1
like "$(cat "$T/version")" '^airlox-relayd [0-9]+\.[0-9]+\.[0-9]+$' \
    "--version prints the version"

grep -Eo '^  --[a-z-]+' "$T/help" | sed 's/^  --//' | sort >"$T/flags"
grep -Eo '\[AIRLOX_[A-Z_]+' "$T/help" | sed 's/^\[//' | sort >"$T/envs"
n=$(wc -l <"$T/flags")
[ "$n" -ge 30 ]
ok $? "--help lists the option table ($n options)"
# The table in the source: every long flag name in relay-config.c.
grep -Eo '^	\{ "[a-z-]+"' "$top_srcdir/relayd/relay-config.c" |
    sed 's/.*"\(.*\)"/\1/' | sort >"$T/table"
is "$(cat "$T/table")" "$(cat "$T/flags")" \
    "--help shows exactly the options of the table"
# Actions (print, check, copy, then exit) have no variable or default.
missing=$(grep -Ev '^(help|version|check|salvage)$' "$T/flags" | while read -r f; do
	[ "$(grep -A1 -E "^  --$f( |\$)" "$T/help" | grep -c 'default: ')" -ge 1 ] ||
	    echo "$f"
done)
is "$missing" "" "every option but the actions shows its default"

missing=$(while read -r f; do
	grep -Eq "^\.It Fl \\\\-$f( |\$)" "$MAN" || echo "$f"
done <"$T/flags")
is "$missing" "" "the man page has an .It entry for every option"
grep -Eo '^\.It Fl \\-[a-z-]+' "$MAN" | sed 's/^\.It Fl \\-//' | sort -u \
    >"$T/manflags"
is "$(cat "$T/manflags")" "$(cat "$T/flags")" \
    "and documents no option the relay lacks"
missing=$(while read -r e; do
	grep -Eq "^\.It Ev $e\$" "$MAN" || echo "$e"
done <"$T/envs")
is "$missing" "" "the man page has an entry for every AIRLOX_ variable"
grep -Eo '^\.It Ev AIRLOX_[A-Z_]+' "$MAN" | sed 's/^\.It Ev //' | sort -u \
    >"$T/manenvs"
is "$(cat "$T/manenvs")" "$(cat "$T/envs")" \
    "and no variable the relay lacks"
bad=$(while read -r f; do
	d=$(grep -A1 -E "^  --$f( |\$)" "$T/help" |
	    sed -n 's/.*default: \(.*\)\]$/\1/p')
	case $d in unset|"") continue ;; esac
	# The option's entry, joined, without macros, says "Default: D".
	awk -v f="$f" '
	    $0 ~ "^\\.It Fl \\\\-" f "( |$)" { on = 1; next }
	    on && /^\.(It|El)/ { exit }
	    on { sub(/^\.[A-Z][a-z] /, ""); printf "%s ", $0 }' "$MAN" |
	    grep -Fq "Default: $d" || echo "$f=$d"
done <"$T/flags")
is "$bad" "" "the man page states each default --help shows"
if command -v mandoc >/dev/null 2>&1; then
	mandoc -Tlint -W warning "$MAN" >"$T/lint" 2>&1
	ok $? "mandoc -Tlint -W warning is clean"
else
	ok 0 "# SKIP mandoc not installed"
fi

"$RELAYD" --no-such-option >"$T/out" 2>&1
is $? 2 "an unknown option: status 2"
"$RELAYD" --plain-http --rate-limit lots >"$T/out" 2>&1
is $? 2 "a bad number: status 2"
like "$(cat "$T/out")" 'rate-limit: not a number: lots' "with a message"
"$RELAYD" --plain-http --max-item-size 200M >"$T/out" 2>&1
is $? 2 "an item size over 100M: status 2"
like "$(cat "$T/out")" 'max-item-size: 200M is out of range' \
    "with a message"
AIRLOX_TIMEOUT=5x "$RELAYD" --plain-http >"$T/out" 2>&1
is $? 2 "a bad duration in the environment: status 2"
# The one rule of airlox(7) (common/util/units.c), as the client reads it.
"$RELAYD" --max-item-size 512k --map-size 1t --version >"$T/out" 2>&1
is $? 0 "sizes take k and t as the client's do"
"$RELAYD" --max-sessions 010 --version >"$T/out" 2>&1
is $? 2 "a count with a leading zero: status 2"
"$RELAYD" --timeout never --version >"$T/out" 2>&1
is $? 2 "never for a bounded duration: status 2"
like "$(cat "$T/out")" 'timeout: never is out of range' "with a message"
"$RELAYD" --plain-http --listen 'nonsense' --data "$T/d" >"$T/out" 2>&1
is $? 1 "an address that is not ADDR:PORT stops the start"
like "$(cat "$T/out")" 'listen nonsense: not ADDR:PORT' "with a message"
"$RELAYD" --plain-http --cert "$T/c" --key "$T/k" >"$T/out" 2>&1
is $? 2 "--plain-http with --cert: status 2"
"$RELAYD" --plain-http --trust-proxy proxy.example >"$T/out" 2>&1
is $? 2 "a --trust-proxy that is not an address: status 2"
"$RELAYD" --plain-http --session-lifetime 40d >"$T/out" 2>&1
is $? 2 "a default lifetime over the maximum: status 2"
done_testing
