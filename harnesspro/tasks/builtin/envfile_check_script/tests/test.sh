#!/bin/bash
# Verifier: runs /workspace/envcheck on hidden templates/env files and argument lists; checks stdout, stderr, status.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys, tempfile

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def settings(text):
    out = []
    for raw in text.split("\n"):
        line = raw.strip()
        if line == "" or line[0] == "#" or "=" not in line:
            continue
        i = line.index("=")
        out.append((line[:i].strip(), line[i + 1:].strip()))
    return out

def expect(args, files):
    strict = len(args) > 0 and args[0] == "--strict"
    pos = args[1:] if strict else args
    if len(pos) != 2:
        return "", "usage: envcheck [--strict] TEMPLATE ENVFILE\n", 2
    for p in pos:
        if p not in files:
            return "", "envcheck: cannot read %s\n" % p, 2
    tpl, env = settings(files[pos[0]]), settings(files[pos[1]])
    last = {}
    for k, v in env:
        last[k] = v
    lines = ["missing: " + k for k, v in tpl if v == "" and last.get(k, "") == ""]
    if strict:
        tkeys, seen = {k for k, _ in tpl}, set()
        for k, _ in env:
            if k not in tkeys and k not in seen:
                seen.add(k)
                lines.append("unknown: " + k)
    return "".join(l + "\n" for l in lines), "", 1 if lines else 0

SCRIPT = "/workspace/envcheck"
if not os.path.isfile(SCRIPT) or not os.access(SCRIPT, os.X_OK):
    fail("/workspace/envcheck is missing or not executable")
d = tempfile.mkdtemp()
F = {
    "t1": "# required\nAPI_TOKEN=\nAPI_URL = https://api.example/v1?x=1\n\n   # COMMENTED=\nWORKERS=\nTIMEOUT=30\n",
    "e_ok": "API_TOKEN=abc=def\nWORKERS = 4\n",
    "e_extra": "API_TOKEN=t\nWORKERS=2\nEXTRA=1\nnot a setting line\nOTHER=\nEXTRA=2\n  API_URL=x\n",
    "e_missing": "WORKERS=\nAPI_TOKEN=x\nAPI_TOKEN=\n# WORKERS=3\nZED=9\n",
    "t2": "B=\nA=\nC=default\n",
    "e_empty": "",
}
files = {}
for name, text in F.items():
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    files[path] = text
P = lambda n: os.path.join(d, n)
cases = [
    [P("t1"), P("e_ok")], ["--strict", P("t1"), P("e_ok")], [P("t1"), P("e_extra")],
    ["--strict", P("t1"), P("e_extra")], [P("t1"), P("e_missing")], ["--strict", P("t1"), P("e_missing")],
    ["--strict", P("t2"), P("e_empty")], [P("t2"), P("e_missing")], ["--strict", P("e_extra"), P("t1")],
    [], [P("t1")], ["--strict", P("t1")], [P("t1"), P("e_ok"), "--strict"], [P("t1"), P("e_ok"), P("t2")],
    [P("t1"), P("nope.env")], ["--strict", P("missing.tpl"), P("nope.env")],
]
for args in cases:
    p = subprocess.run([SCRIPT] + args, capture_output=True, text=True, timeout=10, cwd="/tmp")
    want = expect(args, files)
    got = (p.stdout, p.stderr, p.returncode)
    if got != want:
        fail("envcheck %s: expected (stdout, stderr, status) %r, got %r" % (" ".join(a.replace(d + "/", "") for a in args), want, got))

try:
    report = open("/workspace/env_report.txt").read()
except OSError as e:
    fail("cannot read /workspace/env_report.txt: %s" % e)
if report != "missing: REDIS_URL\nmissing: SMTP_PASSWORD\nunknown: SENTRY_DSN\nunknown: DEBUG_TOOLBAR\n":
    fail("/workspace/env_report.txt has unexpected content %r" % report)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
