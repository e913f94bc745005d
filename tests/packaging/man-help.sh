#!/bin/sh
# man-help.sh: each daemon's --help and its man page agree, both ways: every
# long option --help prints has an entry (.It Fl) in the page and every entry
# is an option --help prints; the same for the AIRLOX_* variables and the
# page's ENVIRONMENT section. The client's table, help and page are checked
# by tests/client/table.sh. And `mandoc -Tlint -W warning` is clean on every
# page in man/.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
need python3

# check PROGRAM PAGE: TAP lines, numbered from $tap_n + 1.
check() {
	prog=$1 page=$2 name=${1##*/}
	if [ ! -x "$prog" ]; then
		skip "$name --help and $(basename "$page")" "$name is not built in this tree"
		return
	fi
	ASAN_OPTIONS=detect_leaks=0 "$prog" --help >"$T/help.txt" 2>&1
	ok $? "$name --help exits 0"
	python3 - "$T/help.txt" "$page" "$name" "$tap_n" >"$T/check.tap" <<'PY'
import re, sys
help_txt, page, name, n = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3], int(sys.argv[4])
failed = 0
def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    failed += 0 if cond else 1
    return cond

# Options: lines of --help that start with a long flag; entries in the page.
help_opts = set(re.findall(r"^\s+--([a-z][a-z0-9-]*)", help_txt, re.M))
page_opts = set(re.findall(r"^\.It Fl \\?-([a-z][a-z0-9-]*)", page, re.M))
ok(len(help_opts) >= 5, "%s --help lists its options (%d)" % (name, len(help_opts)))
for o in sorted(help_opts):
    ok(o in page_opts, "%s(8) has an entry for --%s" % (name, o))
extra = sorted(page_opts - help_opts)
ok(not extra, "every option in %s(8) is in --help%s" % (name, " (not: %s)" % extra if extra else ""))

# Variables: AIRLOX_* named by --help; .It Ev entries of ENVIRONMENT.
help_env = set(re.findall(r"\b(AIRLOX_[A-Z0-9_]+)\b", help_txt))
env_sect = page.split(".Sh ENVIRONMENT", 1)[1].split("\n.Sh ", 1)[0] if ".Sh ENVIRONMENT" in page else ""
page_env = set(re.findall(r"^\.It Ev (AIRLOX_[A-Z0-9_]+)", env_sect, re.M))
for v in sorted(help_env):
    ok(v in page_env, "%s(8) ENVIRONMENT describes %s" % (name, v))
extra = sorted(page_env - help_env)
ok(not extra, "every AIRLOX_ variable in %s(8) is in --help%s" % (name, " (not: %s)" % extra if extra else ""))
for sect in ("NAME", "SYNOPSIS", "DESCRIPTION", "ENVIRONMENT", "FILES", "EXIT STATUS", "SEE ALSO"):
    ok(("\n.Sh %s\n" % sect) in page, "%s(8) has a %s section" % (name, sect))
sys.exit(1 if failed else 0)
PY
	rc=$?
	cat "$T/check.tap"
	n=$(grep -c -E '^(not )?ok ' "$T/check.tap")
	tap_n=$((tap_n + n))
	tap_failed=$((tap_failed + $(grep -c '^not ok ' "$T/check.tap")))
	[ $rc -eq 0 ] || [ "$(grep -c '^not ok ' "$T/check.tap")" -gt 0 ] ||
	    ok 1 "the $name check ran to its end"
}

check "$RELAYD" "$top_srcdir/man/airlox-relayd.8"
check "$RUNNERD" "$top_srcdir/man/airlox-runnerd.8"

if command -v mandoc >/dev/null 2>&1; then
	for page in "$top_srcdir"/man/*.[1-8]; do
		# Noise, not the page's fault: a stale mandoc.db, and pages it
		# refers to that this machine does not have.
		mandoc -Tlint -W warning "$page" 2>&1 |
		    grep -v -E 'outdated mandoc\.db|referenced manual not found' >"$T/lint.txt"
		[ ! -s "$T/lint.txt" ]
		ok $? "mandoc -Tlint -W warning $(basename "$page")"
		sed 's/^/#   /' "$T/lint.txt"
	done
	# mdoc drops the quotes of a quoted word unless they are escaped.
	# (The rendered text without its overstrikes, on one line.)
	mandoc -Tascii "$top_srcdir/man/airlox-relayd.8" 2>/dev/null |
	    sed 's/.\x08//g' | tr -s ' \n' '  ' >"$T/relayd.txt"
	grep -q '{"error": CODE, "message": TEXT}' "$T/relayd.txt"
	ok $? "airlox-relayd(8) shows the error body with its quotes"
else
	skip "mandoc -Tlint" "mandoc is not installed"
fi

# README's map from behaviour to file names files that exist.
missing=$(python3 - "$top_srcdir" <<'PY'
import glob, os, re, sys
top = sys.argv[1]
text = open(os.path.join(top, "README.md")).read()
table = text.split("Where a behaviour lives:", 1)[-1].split("\n## ", 1)[0]
names = re.findall(r"`((?:client|common|relayd|runnerd)/[^`]+)`", table)
print(len(names), " ".join(n for n in names
      if not glob.glob(os.path.join(top, n.split(" ")[0]))))
PY
)
like "$missing" '^[1-9][0-9]* $' "every file README's map names exists (${missing#* })"

# docs/sandbox.md's seccomp paragraph names the file of the filters, and
# the functions and table it names are in that file.
names=$(python3 - "$top_srcdir" <<'PY'
import os, re, sys
top = sys.argv[1]
text = open(os.path.join(top, "docs", "sandbox.md")).read()
para = text.split("\n**seccomp**", 1)[-1].split("\n\n", 1)[0]
files = re.findall(r"`(runnerd/[^`]+\.c)`", para)
syms = re.findall(r"`([a-z_]+)(?:\(\)|\[\])`", para)
src = "".join(open(os.path.join(top, f)).read() for f in files
              if os.path.exists(os.path.join(top, f)))
print(" ".join(files) or "none", "|",
      " ".join(s for s in syms if not re.search(r"\b%s\b" % s, src)) or "ok")
PY
)
like "$names" '^runnerd/sandbox-linux-seccomp\.c \| ok$' \
    "docs/sandbox.md names the seccomp filter's file and what is in it ($names)"
done_testing
