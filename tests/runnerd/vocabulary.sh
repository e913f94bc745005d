#!/bin/sh
# vocabulary.sh: the job vocabulary is defined once, in libairlox: job
# statuses and refusal reasons in common/alx_job.c (alx_job_status_name(),
# alx_refusal_name()), the error names they are in common/airlox/err.h.
# The runner's job path (admission, the loop, workspaces, results, the
# sandboxes) keeps no table of its own and spells none of them as a string
# literal, so a status or a reason cannot be numbered or named apart from
# what every reader decodes. The egress proxy's and the verify probes'
# words (docs/sandbox.md) are another vocabulary and are not looked at.
. "${top_srcdir:-.}/tests/tap.sh"
need python3

python3 - "${top_srcdir:-.}" <<'PY'
import re, sys
top = sys.argv[1]
statuses = ["completed", "timeout", "killed_oom", "cancelled", "refused",
            "interrupted", "lost", "killed_disk"]
reasons = ["not_signed", "not_allowed", "runner_busy", "expired", "replayed",
           "revoked", "not_recipient", "unsupported_version", "bad_path",
           "tree_mismatch", "too_large"]
files = ["runner-admit.c", "runner-loop.c", "runner-tree.c", "runner-job.c",
         "runner-out.c", "runnerd.h", "runner-tree.h", "sandbox.c",
         "sandbox.h", "sandbox-priv.h", "sandbox-cgroup.c", "sandbox-docker.c",
         "sandbox-linux.c", "sandbox-process.c", "sandbox-disk.c"]
lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
n = 0
def ok(cond, what):
    global n
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, what))
for f in files:
    src = open("%s/runnerd/%s" % (top, f)).read()
    # Comments say what a word means; only code counts.
    code = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    words = set(lit.findall(code))
    bad = sorted(w for w in words if w in statuses)
    ok(not bad, "runnerd/%s spells no job status%s" %
       (f, " (it does: %s)" % ", ".join(bad) if bad else ""))
    bad = sorted(w for w in words if w in reasons)
    ok(not bad, "runnerd/%s spells no refusal reason%s" %
       (f, " (it does: %s)" % ", ".join(bad) if bad else ""))
# The one table: every status and reason is there, as libairlox spells it.
job = open("%s/common/alx_job.c" % top).read()
err = open("%s/common/airlox/err.h" % top).read()
ok(all('"%s"' % s in job for s in statuses),
   "common/alx_job.c names every job status")
ok(all('"%s"' % r in err for r in reasons),
   "every refusal reason is an error name of common/airlox/err.h")
print("1..%d" % n)
PY
