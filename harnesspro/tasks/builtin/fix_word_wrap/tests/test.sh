#!/bin/bash
# Verifier: runs the wrapper on hidden texts and widths and compares with an independent greedy filler.
mkdir -p /logs/verifier
export PYTHONDONTWRITEBYTECODE=1
python3 -I - <<'PYEOF'
import random, re, subprocess, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def expect(text, width):
    paras = [p.split() for p in re.split(r"\n[ \t]*\n", "\n" + text + "\n")]
    out = []
    for words in paras:
        if not words:
            continue
        lines = [words[0]]
        for w in words[1:]:
            if len(lines[-1]) + 1 + len(w) <= width:
                lines[-1] += " " + w
            else:
                lines.append(w)
        out.append("".join(l + "\n" for l in lines))
    return "\n".join(out)

def run(text, width):
    p = subprocess.run(["python3", "/workspace/wrapper/cli.py", str(width)], input=text,
                       capture_output=True, text=True, timeout=20)
    return p.stdout, p.returncode

notes = open("/workspace/wrapper/notes.txt").read()
try:
    saved = open("/workspace/notes_40.txt").read()
except OSError as e:
    fail("cannot read /workspace/notes_40.txt: %s" % e)
if saved != expect(notes, 40) or "holding just spaces counts as blank too.\n" not in saved:
    fail("/workspace/notes_40.txt: expected %r, got %r" % (expect(notes, 40), saved))

r = random.Random(72)
vocab = "a an the of wrap line text word greedy fill margin column paragraph x yy zzz supercalifragilistic".split()
cases = [("aaa bbb ccc ddd", 7), ("aaa bbb ccc ddd", 8), ("one\n\n\n\ntwo\n", 10), ("\n\n  \nlead and trail\n \n\n", 5),
         ("", 10), ("   \n\t\n", 10), ("exactly ten", 11), ("abcdefghijkl mn op", 4), ("x\n \t \ny\n\n\t\nz", 3)]
for _ in range(25):
    paras = []
    for _ in range(r.randint(1, 4)):
        words = [r.choice(vocab) for _ in range(r.randint(1, 30))]
        lines, line = [], []
        for w in words:
            line.append(w)
            if r.random() < 0.2:
                lines.append(r.choice([" ", "", "  "]).join([""]) + " ".join(line) + r.choice(["", " ", "\t"]))
                line = []
        lines.append(" ".join(line))
        paras.append("\n".join(lines))
    text = "".join(p + r.choice(["\n\n", "\n\n\n", "\n  \n", "\n\t\n\n"]) for p in paras)
    cases.append((text, r.choice([1, 5, 12, 20, 33])))
for text, width in cases:
    got, want = run(text, width), (expect(text, width), 0)
    if got != want:
        fail("width %d, input %r: expected %r, got %r (exit %d)" % (width, text, want[0], got[0], got[1]))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
