#!/bin/sh
# kubernetes.sh: the manifests in contrib/kubernetes parse (a small YAML
# subset parser below: block mappings and sequences, plain and quoted
# scalars, comments, documents; no PyPI) and hold together: the StatefulSet
# with a volume per pod on /data, its headless Service, one Service per pod
# that the Ingress routes each pod's host to, the health probes, resources,
# the PodDisruptionBudget, and an Ingress that does not buffer streams.
. "${top_srcdir:-.}/tests/packaging/lib.sh"
need python3
python3 - "$top_srcdir/contrib/kubernetes" "$RELAYD" <<'PY'
import os, re, subprocess, sys
kdir, relayd = sys.argv[1], sys.argv[2]
n = failed = 0
def ok(cond, what):
    global n, failed
    n += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, what))
    failed += 0 if cond else 1
    return cond

class YamlError(Exception):
    pass

def scalar(s):
    s = s.strip()
    if s in ("", "~", "null"):
        return None
    if s[0] in "\"'":
        q = s[0]
        if len(s) < 2 or s[-1] != q:
            raise YamlError("unterminated string: %s" % s)
        body = s[1:-1]
        return body.replace("''", "'") if q == "'" else bytes(body, "utf-8").decode("unicode_escape")
    if s == "[]":
        return []
    if s == "{}":
        return {}
    if s[0] in "[{|>&*!%@`":
        raise YamlError("not in the subset this test reads: %s" % s)
    if s in ("true", "false"):
        return s == "true"
    if re.fullmatch(r"-?[0-9]+", s):
        return int(s)
    return s

def strip_comment(line):
    out, q = [], None
    for i, c in enumerate(line):
        if q:
            if c == q:
                q = None
        elif c in "\"'" and (i == 0 or line[i - 1] in " :-[{,"):
            q = c
        elif c == "#" and (i == 0 or line[i - 1] == " "):
            break
        out.append(c)
    return "".join(out).rstrip()

def parse_docs(text):
    docs, cur = [], []
    for raw in text.split("\n"):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError("tab in indentation")
        line = strip_comment(raw)
        if line.strip() == "---":
            docs.append(cur)
            cur = []
        elif line.strip():
            cur.append((len(line) - len(line.lstrip()), line.strip()))
    docs.append(cur)
    return [parse_block(d, 0, d[0][0])[0] for d in docs if d]

def split_key(s):
    m = re.match(r"^([A-Za-z0-9_./-]+|\"[^\"]*\"|'[^']*'):(?:\s+(.*))?$", s)
    if not m:
        return None
    k = m.group(1)
    return (k[1:-1] if k[0] in "\"'" else k), m.group(2)

def parse_block(lines, i, ind):
    if lines[i][1].startswith("- ") or lines[i][1] == "-":
        out = []
        while i < len(lines) and lines[i][0] == ind and (lines[i][1].startswith("- ") or lines[i][1] == "-"):
            rest = lines[i][1][2:].strip()
            if not rest:
                val, i = parse_block(lines, i + 1, lines[i + 1][0])
            elif split_key(rest):
                # "- key: value" opens a mapping indented at the key.
                sub = [(ind + 2, rest)]
                j = i + 1
                while j < len(lines) and lines[j][0] > ind:
                    sub.append(lines[j])
                    j += 1
                val, _ = parse_block(sub, 0, ind + 2)
                i = j
            else:
                val, i = scalar(rest), i + 1
            out.append(val)
        return out, i
    out = {}
    while i < len(lines) and lines[i][0] == ind:
        kv = split_key(lines[i][1])
        if kv is None:
            raise YamlError("not a mapping entry: %s" % lines[i][1])
        k, v = kv
        if k in out:
            raise YamlError("duplicate key %s" % k)
        if v is None or v == "":
            if i + 1 < len(lines) and (lines[i + 1][0] > ind or
                    (lines[i + 1][0] == ind and lines[i + 1][1].startswith("- "))):
                out[k], i = parse_block(lines, i + 1, lines[i + 1][0])
            else:
                out[k], i = None, i + 1
        else:
            out[k], i = scalar(v), i + 1
    if i < len(lines) and lines[i][0] > ind:
        raise YamlError("bad indentation at: %s" % lines[i][1])
    return out, i

# The parser itself, on a sample, so a broken parser cannot pass the rest.
sample = parse_docs("a: 1\nb:\n  - x: 'y'\n    z: [] # c\n  - w\nc: \"q#r\"\n---\nd: true\n")
ok(sample == [{"a": 1, "b": [{"x": "y", "z": []}, "w"], "c": "q#r"}, {"d": True}],
   "the YAML subset parser reads its sample")

objs, files = [], sorted(f for f in os.listdir(kdir) if f.endswith(".yaml"))
for f in files:
    try:
        docs = parse_docs(open(os.path.join(kdir, f)).read())
        ok(True, "%s parses" % f)
    except (YamlError, IndexError) as e:
        ok(False, "%s parses (%s)" % (f, e))
        continue
    for d in docs:
        ok(isinstance(d, dict) and d.get("apiVersion") and d.get("kind"),
           "%s: each document has apiVersion and kind" % f)
        if f != "kustomization.yaml":
            ok(isinstance(d.get("metadata"), dict) and d["metadata"].get("name"),
               "%s: %s has a name" % (f, d.get("kind")))
        objs.append((f, d))

def find(kind, name=None):
    return [d for _, d in objs if d.get("kind") == kind and
            (name is None or d["metadata"]["name"] == name)]
def get(d, *path):
    for p in path:
        if isinstance(d, dict):
            d = d.get(p)
        elif isinstance(d, list) and isinstance(p, int) and p < len(d):
            d = d[p]
        else:
            return None
    return d

kust = find("Kustomization")
ok(kust and sorted(kust[0].get("resources", [])) == sorted(f for f in files if f != "kustomization.yaml"),
   "kustomization.yaml lists every manifest")

sts = find("StatefulSet")
ok(len(sts) == 1, "one StatefulSet")
s = sts[0] if sts else {}
name = get(s, "metadata", "name")
sel = get(s, "spec", "selector", "matchLabels") or {}
ok(sel and all(get(s, "spec", "template", "metadata", "labels", k) == v for k, v in sel.items()),
   "the selector matches the pod template's labels")
replicas = get(s, "spec", "replicas")
ok(isinstance(replicas, int) and replicas >= 2, "several replicas (%s)" % replicas)
svcname = get(s, "spec", "serviceName")
head = find("Service", svcname or "")
ok(head and get(head[0], "spec", "clusterIP") == "None", "serviceName is a headless Service")
c = get(s, "spec", "template", "spec", "containers", 0) or {}
ports = {p.get("name"): p.get("containerPort") for p in c.get("ports", [])}
ok(ports.get("http") == 8080, "the container exposes port 8080 as 'http'")
vct = get(s, "spec", "volumeClaimTemplates") or []
vct_names = [get(v, "metadata", "name") for v in vct]
mounts = {m.get("mountPath"): m.get("name") for m in c.get("volumeMounts", [])}
ok(mounts.get("/data") in vct_names, "/data is a volume claim template (one volume per pod)")
ok(all("ReadWriteOnce" in (get(v, "spec", "accessModes") or []) and
       get(v, "spec", "resources", "requests", "storage") for v in vct),
   "the claims ask for ReadWriteOnce storage of a size")
cm = find("ConfigMap")
env = dict(get(cm[0], "data") or {}) if cm else {}
ok(any(get(e, "configMapRef", "name") == get(cm[0], "metadata", "name") for e in c.get("envFrom", [])) if cm else False,
   "the container takes its settings from the ConfigMap")
ok(env.get("AIRLOX_DATA") == "/data", "AIRLOX_DATA is /data")
ok(env.get("AIRLOX_PLAIN_HTTP") == "yes", "plain HTTP behind the Ingress")
# Every variable in the ConfigMap is one the relay knows.
if os.access(relayd, os.X_OK):
    h = subprocess.run([relayd, "--help"], capture_output=True, text=True,
                       env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0")).stdout
    unknown = sorted(k for k in env if "[%s;" % k not in h)
    ok(not unknown, "the ConfigMap names only variables airlox-relayd knows%s" %
       (" (not: %s)" % unknown if unknown else ""))
    size = lambda v: int(v[:-1]) * {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[v[-1]]
    cap = get(vct[0], "spec", "resources", "requests", "storage") if vct else None
    ok(cap and "AIRLOX_MAP_SIZE" in env and size(env["AIRLOX_MAP_SIZE"]) < size(cap[:-1]),
       "the LMDB map size is below the volume's size")
ok(env.get("AIRLOX_PORT_FILE", "").startswith("/run/airlox/") and "/run/airlox" in mounts,
   "the port file (for the image's health check) is on a writable mount")
for probe, path in (("livenessProbe", "/v1/health/live"), ("readinessProbe", "/v1/health/ready")):
    ok(get(c, probe, "httpGet", "path") == path and get(c, probe, "httpGet", "port") in ("http", 8080),
       "%s asks %s on the relay's port" % (probe, path))
res = c.get("resources") or {}
ok(get(res, "requests", "cpu") and get(res, "requests", "memory"), "resource requests (cpu, memory)")
ok(get(res, "limits", "memory"), "a memory limit")
ok(get(s, "spec", "template", "spec", "securityContext", "runAsNonRoot") is True and
   get(c, "securityContext", "allowPrivilegeEscalation") is False and
   get(c, "securityContext", "readOnlyRootFilesystem") is True and
   get(c, "securityContext", "capabilities", "drop") == ["ALL"],
   "non-root, no privilege escalation, read-only root, no capabilities")
ok(isinstance(get(s, "spec", "template", "spec", "terminationGracePeriodSeconds"), int),
   "a termination grace period for the relay's drain")

# One Service per pod, selecting exactly that pod.
for i in range(replicas if isinstance(replicas, int) else 0):
    pod = "%s-%d" % (name, i)
    svc = [d for d in find("Service") if get(d, "spec", "selector", "statefulset.kubernetes.io/pod-name") == pod]
    ok(len(svc) == 1, "a Service selects pod %s alone" % pod)

pdb = find("PodDisruptionBudget")
ok(pdb and get(pdb[0], "spec", "selector", "matchLabels") == sel and
   (get(pdb[0], "spec", "maxUnavailable") or get(pdb[0], "spec", "minAvailable")) is not None,
   "a PodDisruptionBudget covers the relay pods")

ing = find("Ingress")
ok(len(ing) == 1, "an Ingress example")
g = ing[0] if ing else {}
ann = get(g, "metadata", "annotations") or {}
ok(ann.get("nginx.ingress.kubernetes.io/proxy-buffering") == "off",
   "the Ingress turns response buffering off (SSE)")
ok(int(ann.get("nginx.ingress.kubernetes.io/proxy-read-timeout", "0")) >= 300,
   "and lets streams stay open past the default minute")
rules = get(g, "spec", "rules") or []
hosts, backs = [], []
for r in rules:
    hosts.append(r.get("host"))
    for p in get(r, "http", "paths") or []:
        backs.append((r.get("host"), get(p, "backend", "service", "name"), get(p, "backend", "service", "port", "name")))
ok(len(set(hosts)) == len(hosts) == (replicas or 0), "one host per relay pod")
svcs = {get(d, "metadata", "name"): d for d in find("Service")}
good = all(b in svcs and any(p.get("name") == port for p in get(svcs[b], "spec", "ports") or [])
           and get(svcs[b], "spec", "selector", "statefulset.kubernetes.io/pod-name")
           for _, b, port in backs)
ok(backs and good, "every host routes to a per-pod Service and a port it has")
ok(len({b for _, b, _ in backs}) == len(backs), "no two hosts share a pod")
tls_hosts = sorted(h for t in get(g, "spec", "tls") or [] for h in t.get("hosts", []))
ok(tls_hosts == sorted(hosts), "TLS covers every host")
print("1..%d" % n)
sys.exit(1 if failed else 0)
PY
# python3 printed the TAP; its status is ours ($T is removed by the trap).
exit $?
