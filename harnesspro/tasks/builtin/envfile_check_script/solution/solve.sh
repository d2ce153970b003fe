#!/bin/bash
# Reference solution: a python3 script; the report step accepts the expected exit status 1.

printf '#!/usr/bin/env python3\n' > /workspace/envcheck && cat >> /workspace/envcheck <<'PY'
import sys
USAGE = "usage: envcheck [--strict] TEMPLATE ENVFILE\n"
args = sys.argv[1:]
strict = bool(args) and args[0] == "--strict"
if strict:
    args = args[1:]
if len(args) != 2:
    sys.stderr.write(USAGE)
    sys.exit(2)
def parse(path):
    try:
        with open(path) as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        sys.stderr.write("envcheck: cannot read %s\n" % path)
        sys.exit(2)
    pairs = []
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#") or "=" not in s:
            continue
        key, value = s.split("=", 1)
        pairs.append((key.strip(), value.strip()))
    return pairs
template, env = parse(args[0]), parse(args[1])
values = dict(env)
out = ["missing: %s" % k for k, v in template if v == "" and values.get(k, "") == ""]
if strict:
    known = {k for k, _ in template}
    for k in dict.fromkeys(k for k, _ in env):
        if k not in known:
            out.append("unknown: %s" % k)
sys.stdout.write("".join(line + "\n" for line in out))
sys.exit(1 if out else 0)
PY
chmod 755 /workspace/envcheck

/workspace/envcheck --strict /workspace/app.env.template /workspace/app.env > /workspace/env_report.txt || test $? -eq 1
