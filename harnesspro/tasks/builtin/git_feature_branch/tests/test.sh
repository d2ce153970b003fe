#!/bin/bash
# Verifier: checks commit graph, messages, trees (by blob id), branches and the tag of /workspace/proj.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

REPO = "/workspace/proj"
CALC_V1 = "2ee2edac1f84a57bd3a63f9ccd131880e3113eb0"
CALC_V2 = "785093471fb0c2fb299a07e79c13ff20a008625f"
README = "12012d072b76de8199cc2d42bef0a36160fedcfb"
CHANGELOG = "ccd89abd33ffba16f8d21e56ddef2e037a5d1073"

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def git(*args):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("git %s failed: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout.strip()

def tree(rev):
    entries = {}
    for line in git("ls-tree", "-r", rev).splitlines():
        meta, path = line.split("\t", 1)
        entries[path] = meta.split()[2]
    return entries

def subject(rev):
    return git("log", "-1", "--format=%s", rev)

def parents(rev):
    return git("rev-list", "--parents", "-n", "1", rev).split()[1:]

if not os.path.isdir(os.path.join(REPO, ".git")):
    fail("/workspace/proj is not a git repository")
if git("symbolic-ref", "--short", "HEAD") != "main":
    fail("main must be checked out")
if git("rev-list", "--count", "main") != "4":
    fail("main must contain exactly 4 commits, found " + git("rev-list", "--count", "main"))

merge = git("rev-parse", "main")
if subject(merge) != "Merge feature/power" or git("log", "-1", "--format=%b", merge):
    fail("tip of main must be the merge commit 'Merge feature/power', got %r" % subject(merge))
mp = parents(merge)
if len(mp) != 2:
    fail("tip of main is not a merge commit (parents: %d)" % len(mp))
changelog_c, feature_c = mp
if subject(changelog_c) != "Add changelog":
    fail("first parent of the merge must be 'Add changelog', got %r" % subject(changelog_c))
if subject(feature_c) != "Add power function":
    fail("second parent of the merge must be 'Add power function', got %r" % subject(feature_c))
if git("rev-parse", "refs/heads/feature/power") != feature_c:
    fail("branch feature/power must point at the 'Add power function' commit")
root_a, root_b = parents(changelog_c), parents(feature_c)
if len(root_a) != 1 or root_a != root_b:
    fail("'Add changelog' and 'Add power function' must both have the single parent 'Add calculator'")
root = root_a[0]
if subject(root) != "Add calculator" or parents(root):
    fail("the first commit must be the root commit 'Add calculator'")

expect = {
    root: {"calc.py": CALC_V1, "README.md": README},
    feature_c: {"calc.py": CALC_V2, "README.md": README},
    changelog_c: {"calc.py": CALC_V1, "README.md": README, "CHANGELOG.md": CHANGELOG},
    merge: {"calc.py": CALC_V2, "README.md": README, "CHANGELOG.md": CHANGELOG},
}
names = {root: "Add calculator", feature_c: "Add power function", changelog_c: "Add changelog", merge: "merge"}
for rev, files in expect.items():
    got = tree(rev)
    if got != files:
        fail("tree of %s: expected %s, got %s" % (names[rev], sorted(files), {k: v[:8] for k, v in got.items()}))

if git("cat-file", "-t", "v1.0") != "commit":
    fail("v1.0 must be a lightweight tag (points directly at a commit)")
if git("rev-parse", "v1.0") != merge:
    fail("v1.0 must point at the merge commit")
if git("status", "--porcelain"):
    fail("working tree is not clean")
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
