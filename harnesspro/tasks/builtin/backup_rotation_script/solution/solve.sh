#!/bin/bash
# Reference solution: a python3 script; ISO weeks come from date.isocalendar().

printf '#!/usr/bin/env python3\n' > /workspace/prune_plan && cat >> /workspace/prune_plan <<'PY'
import datetime, re, sys
USAGE = "usage: prune_plan [-d N] [-w N] [-m N]\n"
limits = {"-d": 7, "-w": 4, "-m": 6}
args, given = sys.argv[1:], set()
while args:
    if len(args) < 2 or args[0] not in limits or args[0] in given or not re.fullmatch(r"[0-9]+", args[1]):
        sys.stderr.write(USAGE)
        sys.exit(2)
    given.add(args[0])
    limits[args[0]] = int(args[1])
    args = args[2:]
backups = {}
for line in sys.stdin.read().split("\n"):
    if line == "":
        continue
    m = re.fullmatch(r"backup-([0-9]{4})-([0-9]{2})-([0-9]{2})\.tar\.gz", line)
    try:
        backups[line] = datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except (AttributeError, ValueError):
        sys.stderr.write("ignored: %s\n" % line)
newest = sorted(backups, key=backups.get, reverse=True)
keep = set(newest[:limits["-d"]])
for bucket, n in ((lambda d: d.isocalendar()[:2], limits["-w"]), (lambda d: (d.year, d.month), limits["-m"])):
    firsts = {}
    for name in newest:
        firsts.setdefault(bucket(backups[name]), name)
    keep.update(list(firsts.values())[:n])
for name in reversed(newest):
    if name not in keep:
        print(name)
PY
chmod 755 /workspace/prune_plan

/workspace/prune_plan -d 3 -w 5 -m 4 < /workspace/backups.txt > /workspace/to_delete.txt
