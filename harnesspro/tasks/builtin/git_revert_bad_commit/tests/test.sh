#!/bin/bash
# Verifier: checks the four commits of /workspace/service (messages, trees by blob id), the revert body and the tag.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

REPO = "/workspace/service"
APP1, APP3 = "e10c1d89ecd61ff2acbb32dbd740c494b528dfcd", "a53432ba50f6834eb8f99c8bbac873315db7f3df"
CFG1, CFG2, CFG3 = ("f419e26c783865b4d9744e9f44376b4651110e9a", "af993d435288a6bbf192a0259b87cb61ad1e1c52",
                    "749dbf7b133c72e61758ddb54dfc4ffd9965322c")
CFG_FINAL = "97290e00706ef934381df3d6386276eeceef205a"

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def git(*args):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("git %s failed: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout.strip()

def tree(rev):
    out = {}
    for line in git("ls-tree", "-r", rev).splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out

if not os.path.isdir(os.path.join(REPO, ".git")):
    fail("/workspace/service is not a git repository")
if git("symbolic-ref", "--short", "HEAD") != "main":
    fail("main must be checked out")
revs = git("rev-list", "--reverse", "main").split()
if len(revs) != 4:
    fail("main must have exactly 4 commits, found %d" % len(revs))
for rev in revs:
    if len(git("rev-list", "--parents", "-n", "1", rev).split()) > 2:
        fail("history must be linear (no merge commits)")
c1, c2, c3, c4 = revs
subjects = [git("log", "-1", "--format=%s", r) for r in revs]
want_subjects = ["Add service", "Raise timeout", "Add retries", 'Revert "Raise timeout"']
if subjects != want_subjects:
    fail("commit subjects must be %r, got %r" % (want_subjects, subjects))
expect = [(c1, {"app.py": APP1, "config.ini": CFG1}), (c2, {"app.py": APP1, "config.ini": CFG2}),
          (c3, {"app.py": APP3, "config.ini": CFG3}), (c4, {"app.py": APP3, "config.ini": CFG_FINAL})]
for (rev, files), subject in zip(expect, want_subjects):
    got = tree(rev)
    if got != files:
        fail("tree of %r: expected %s, got %s" % (subject, files, got))
body = git("log", "-1", "--format=%b", c4)
if "This reverts commit %s." % c2 not in body:
    fail("revert commit body must contain 'This reverts commit %s.', got %r" % (c2, body))
if git("cat-file", "-t", "v1.1") != "tag":
    fail("v1.1 must be an annotated tag")
if git("rev-parse", "v1.1^{commit}") != c4:
    fail("v1.1 must point at the revert commit")
if git("for-each-ref", "--format=%(contents)", "refs/tags/v1.1").strip() != "Release 1.1":
    fail("tag message must be 'Release 1.1'")
if git("status", "--porcelain", "--untracked-files=all"):
    fail("working tree is not clean")
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
