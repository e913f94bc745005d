#!/bin/sh
# launchd.sh: the runner's launchd agent is a well-formed property list
# (python3's XML parser and plistlib, no plutil), with the keys launchd needs,
# and its placeholders fill in to a plist that starts airlox-runnerd.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
need python3
python3 - "$top_srcdir/contrib/launchd/org.airlox.runnerd.plist.in" <<'PY'
import plistlib, re, sys, xml.dom.minidom
n = failed = 0
def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    failed += 0 if cond else 1

src = open(sys.argv[1], "rb").read()
try:
    xml.dom.minidom.parseString(src)
    ok(True, "the template is well-formed XML")
except Exception as e:
    ok(False, "the template is well-formed XML (%s)" % e)
ok(set(re.findall(rb"@([A-Z_]+)@", src)) == {b"PATH", b"STATE_DIR", b"LOG",
   b"ARGS"}, "its placeholders are @PATH@, @STATE_DIR@, @LOG@ and @ARGS@")
# install-service drops the opening comment (it names the placeholders).
body = re.sub(rb"<!--.*?-->", b"", src, count=1, flags=re.S)
filled = (body.replace(b"@PATH@", b"/usr/local/sbin/airlox-runnerd")
          .replace(b"@ARGS@", b"<string>--name</string><string>box</string>")
          .replace(b"@STATE_DIR@", b"/Users/a/Library/Application Support/airlox")
          .replace(b"@LOG@", b"/Users/a/Library/Logs/airlox-runnerd.log"))
try:
    p = plistlib.loads(filled)
    ok(True, "filled in, it is a property list")
except Exception as e:
    p = {}
    ok(False, "filled in, it is a property list (%s)" % e)
ok(isinstance(p, dict), "the top level is a dict")
ok(p.get("Label") == "org.airlox.runnerd", "Label is org.airlox.runnerd")
args = p.get("ProgramArguments", [])
ok(isinstance(args, list) and args[:1] == ["/usr/local/sbin/airlox-runnerd"],
   "ProgramArguments starts the runner by its full path")
ok("--state-dir" in args and
   args[args.index("--state-dir") + 1].endswith("Application Support/airlox"),
   "the state directory is passed as one argument, spaces and all")
ok(p.get("RunAtLoad") is True, "RunAtLoad")
ka = p.get("KeepAlive")
ok(isinstance(ka, dict) and ka.get("SuccessfulExit") is False,
   "KeepAlive restarts after a failure, not after a clean exit")
ok(isinstance(p.get("ExitTimeOut"), int) and p["ExitTimeOut"] >= 30,
   "ExitTimeOut leaves the runner's grace period (30 s) to finish jobs")
ok(p.get("Umask") == 0o77, "Umask 077")
ok(p.get("StandardErrorPath", "").endswith(".log"), "stderr goes to the log")
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
# python3 printed the TAP; its status is ours ($T is removed by the trap).
exit $?
