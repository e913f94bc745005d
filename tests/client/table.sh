#!/bin/sh
# table.sh: the command table, `airlox --help`, `airlox CMD --help` and
# airlox(1) agree: every command, option and exit status of the table is in
# the help texts and the man page, and everything those name is in the
# table. The table comes from `airlox --json help`.
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
AIRLOX=${AIRLOX:-$top_builddir/client/airlox}
MAN=$top_srcdir/man/airlox.1
command -v python3 >/dev/null 2>&1 || { echo "1..0 # SKIP needs python3"; exit 0; }
T=$(mktemp -d "${TMPDIR:-/tmp}/client-table.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

"$AIRLOX" --json help >"$T/table.json" || { echo "not ok 1 - help --json"; echo "1..1"; exit 1; }
"$AIRLOX" --help >"$T/help.txt" || { echo "not ok 1 - --help"; echo "1..1"; exit 1; }
python3 - "$T/table.json" >"$T/cmds.txt" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["commands"]:
    print(c["name"])
PY
while IFS= read -r c; do
	# shellcheck disable=SC2086
	"$AIRLOX" $c --help >"$T/help-$(echo "$c" | tr ' ' _).txt" 2>&1 ||
	    echo "$c" >>"$T/help-failed"
done <"$T/cmds.txt"

exec python3 - "$T" "$MAN" <<'PY'
import json, os, re, sys
tdir, man = sys.argv[1], sys.argv[2]
table = json.load(open(os.path.join(tdir, "table.json")))
help_all = open(os.path.join(tdir, "help.txt")).read()
page = open(man).read()
n = 0
failed = 0

def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    if not cond:
        failed += 1

def opts_in(text):
    return set(re.findall(r"(?<![\w-])--([a-z][a-z-]*)", text))

globals_ = {o["name"] for o in table["global_options"]}
parts = {o["name"] for o in table["participant_options"]}
every = set(globals_) | parts
ok(not os.path.exists(os.path.join(tdir, "help-failed")),
   "airlox CMD --help exits 0 for every command")

# The man page, cut into its command entries (".It Xo" ... up to the next).
sect = page.split(".Sh COMMANDS", 1)[1].split(".Sh ", 1)[0]
entries = {}
for block in sect.split(".It Xo")[1:]:
    m = re.search(r"^\.Cm (.+)$", block, re.M)
    if m:
        entries[m.group(1).strip()] = block
man_opts = set(re.findall(r"Fl -([a-z][a-z-]*)", page))

for c in table["commands"]:
    name = c["name"]
    mine = {o["name"] for o in c["options"]}
    every |= mine
    h = open(os.path.join(tdir, "help-%s.txt" % name.replace(" ", "_"))).read()
    ok(re.search(r"^  %s " % re.escape(name), help_all, re.M) is not None,
       "airlox --help lists '%s'" % name)
    ok(name in entries, "airlox(1) has an entry for '%s'" % name)
    block = entries.get(name, "")
    for o in sorted(mine):
        ok(o in opts_in(h), "airlox %s --help shows --%s" % (name, o))
        ok(re.search(r"^\.Op Fl -%s(\s|$)" % re.escape(o), block, re.M) is not None,
           "airlox(1) '%s' synopsis has --%s" % (name, o))
        ok(re.search(r"^\.It Fl -%s(\s|$)" % re.escape(o), block, re.M) is not None,
           "airlox(1) '%s' describes --%s" % (name, o))
    allowed = mine | globals_ | (parts if c["participant"] else set())
    extra = opts_in(h) - allowed
    ok(not extra, "airlox %s --help shows only its options%s" % (name, " (not: %s)" % sorted(extra) if extra else ""))
    man_extra = set(re.findall(r"^\.Op Fl -([a-z-]+)", block, re.M)) - mine
    ok(not man_extra, "airlox(1) '%s' synopsis has only its options%s" % (name, " (not: %s)" % sorted(man_extra) if man_extra else ""))

for o in sorted(globals_ | parts):
    ok(o in opts_in(help_all), "airlox --help shows --%s" % o)
    ok(re.search(r"^\.It Fl -%s(\s|$)" % re.escape(o), page, re.M) is not None,
       "airlox(1) describes --%s" % o)

# The other way round.
names = {c["name"] for c in table["commands"]}
ok(set(entries) <= names, "every command in airlox(1) is in the table%s" % (
   "" if set(entries) <= names else " (not: %s)" % sorted(set(entries) - names)))
listed = set(re.findall(r"^  ([a-z][a-z-]*(?: [a-z][a-z-]*)?)\s{2,}", help_all.split("Commands:", 1)[1].split("\n\n", 1)[0], re.M))
ok(listed == names, "airlox --help lists exactly the table's commands")
ok(man_opts <= every, "every option in airlox(1) is in the table%s" % (
   "" if man_opts <= every else " (not: %s)" % sorted(man_opts - every)))
ok(opts_in(help_all) <= every, "every option in airlox --help is in the table")

# Exit statuses.
codes = {e["code"]: e["name"] for e in table["exit_codes"]}
exit_sect = page.split(".Sh EXIT STATUS", 1)[1].split(".Sh ", 1)[0]
man_codes = {int(x) for x in re.findall(r"^\.It Sy (\d+)", exit_sect, re.M)}
ok(man_codes == set(codes), "airlox(1) EXIT STATUS lists exactly the table's codes")
for code, name in sorted(codes.items()):
    ok(re.search(r"^\s*%d %s:" % (code, re.escape(name)), help_all, re.M) is not None,
       "airlox --help explains exit status %d" % code)
    ok(re.search(r"^\.It Sy %d\n%s:" % (code, re.escape(name)), exit_sect, re.M) is not None,
       "airlox(1) explains exit status %d (%s)" % (code, name))
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
