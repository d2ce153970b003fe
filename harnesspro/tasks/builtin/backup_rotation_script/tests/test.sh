#!/bin/bash
# Verifier: runs /workspace/prune_plan on hidden backup lists and option sets; checks stdout, stderr, status.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import datetime, os, random, subprocess, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

USAGE = "usage: prune_plan [-d N] [-w N] [-m N]\n"

def parse_date(line):
    if len(line) != 24 or not line.startswith("backup-") or not line.endswith(".tar.gz"):
        return None
    y, m, d = line[7:11], line[12:14], line[15:17]
    if line[11] != "-" or line[14] != "-" or not all(c.isascii() and c.isdigit() for c in y + m + d):
        return None
    try:
        return datetime.date(int(y), int(m), int(d))
    except ValueError:
        return None

def expect(args, text):
    opts, i = {}, 0
    while i < len(args):
        a = args[i]
        if a not in ("-d", "-w", "-m") or a in opts or i + 1 >= len(args) or not args[i + 1].isascii() \
                or not args[i + 1].isdigit():
            return "", USAGE, 2
        opts[a] = int(args[i + 1])
        i += 2
    d, w, m = opts.get("-d", 7), opts.get("-w", 4), opts.get("-m", 6)
    err, dates = "", {}
    for line in text.split("\n"):
        if line:
            dt = parse_date(line)
            if dt is None:
                err += "ignored: %s\n" % line
            else:
                dates[line] = dt
    order = sorted(dates, key=lambda n: dates[n])
    keep = set(order[max(0, len(order) - d):])
    weeks, months = {}, {}
    for name in order:
        iso = dates[name].isocalendar()
        weeks[(iso[0], iso[1])] = name
        months[(dates[name].year, dates[name].month)] = name
    for table, n in ((weeks, w), (months, m)):
        for key in sorted(table)[max(0, len(table) - n):]:
            keep.add(table[key])
    return "".join(x + "\n" for x in order if x not in keep), err, 0

SCRIPT = "/workspace/prune_plan"
if not os.path.isfile(SCRIPT) or not os.access(SCRIPT, os.X_OK):
    fail("/workspace/prune_plan is missing or not executable")

def gen(seed, start, days, p):
    r = random.Random(seed)
    names, day = [], start
    for _ in range(days):
        if r.random() < p:
            names.append("backup-%s.tar.gz" % day.isoformat())
        day += datetime.timedelta(days=1)
    names += r.sample(names, min(5, len(names)))
    names += ["", "backup-2021-02-29.tar.gz", "backup-2020-02-29.tar.gz", "backup-2022-04-31.tar.gz",
              "notes.md", " backup-2022-01-01.tar.gz", "backup-2022-01-01.tgz", "backup-20220101.tar.gz"]
    r.shuffle(names)
    return "\n".join(names) + "\n"

lists = [gen(1, datetime.date(2020, 11, 20), 80, 0.5), gen(2, datetime.date(2021, 12, 1), 50, 0.3),
         gen(3, datetime.date(2026, 12, 10), 40, 0.6), gen(4, datetime.date(2019, 1, 1), 400, 0.15)]
cases = [([], 0), (["-d", "3", "-w", "5", "-m", "4"], 0), (["-m", "2", "-d", "0"], 1), (["-w", "10"], 2),
         (["-d", "0", "-w", "0", "-m", "0"], 3), (["-w", "2", "-m", "13", "-d", "2"], 3), (["-d", "30"], 1),
         (["-m", "1", "-w", "1", "-d", "1"], 2), (["-d", "007"], 0), (["-w", "3"], 3),
         (["-d"], 0), (["-x", "3"], 0), (["-d", "-1"], 0), (["-d", "3", "-d", "4"], 0), (["-d", "3", "extra"], 0),
         (["-d3"], 0), (["-w", ""], 0), (["-m", "1.5"], 0), (["3"], 0)]
for args, li in cases:
    p = subprocess.run([SCRIPT] + args, input=lists[li], capture_output=True, text=True, timeout=20, cwd="/tmp")
    want = expect(args, lists[li])
    if (p.stdout, p.stderr, p.returncode) != want:
        got = (p.stdout, p.stderr, p.returncode)
        what = next(i for i in range(3) if got[i] != want[i])
        fail("prune_plan %s on hidden list %d: %s differs; expected %r, got %r"
             % (" ".join(args), li, ("stdout", "stderr", "exit status")[what], want[what], got[what]))

sample = open("/workspace/backups.txt").read()
want = expect(["-d", "3", "-w", "5", "-m", "4"], sample)[0]
try:
    got = open("/workspace/to_delete.txt").read()
except OSError as e:
    fail("cannot read /workspace/to_delete.txt: %s" % e)
if sample.count("\n") != 247 or got != want:
    fail("/workspace/to_delete.txt differs from the expected plan (%d lines expected, %d found)" % (want.count("\n"), got.count("\n")))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
