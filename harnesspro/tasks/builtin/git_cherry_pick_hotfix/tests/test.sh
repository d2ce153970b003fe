#!/bin/bash
# Verifier: checks the main and release/1.x histories of /workspace/lib, the cherry-pick trailer and both tags.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

REPO = "/workspace/lib"
README, PARSER = "d2d15ac9039f204a1d9fe5725bc06fc3fd439442", "27d0a1c71c618194352b3ebf0a0081f5792cb6ff"
EXPORT, PARSER_FIXED = "2d1241abbbf0f89b954021559dd87b2b0f220590", "c25e265c24d1a305c6b0c75e3acff9263b4e7ef9"

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

def subject(rev):
    return git("log", "-1", "--format=%s", rev)

def parents(rev):
    return git("rev-list", "--parents", "-n", "1", rev).split()[1:]

if not os.path.isdir(os.path.join(REPO, ".git")):
    fail("/workspace/lib is not a git repository")
if git("symbolic-ref", "--short", "HEAD") != "main":
    fail("main must be checked out")
main = git("rev-list", "main").split()
if len(main) != 3:
    fail("main must have exactly 3 commits, found %d" % len(main))
fix, feat, root = main
if [subject(root), subject(feat), subject(fix)] != ["Initial version", "Add CSV export", "Fix parser crash on empty input"]:
    fail("unexpected subjects on main: %r" % [subject(root), subject(feat), subject(fix)])
if parents(root) or parents(feat) != [root] or parents(fix) != [feat]:
    fail("main must be a linear history of three commits")
if tree(root) != {"README.md": README, "parser.py": PARSER}:
    fail("'Initial version' must contain exactly the original parser.py and README.md")
if tree(feat) != {"README.md": README, "parser.py": PARSER, "export.py": EXPORT}:
    fail("'Add CSV export' must only add export.py (copied from /workspace/patches)")
if tree(fix) != {"README.md": README, "parser.py": PARSER_FIXED, "export.py": EXPORT}:
    fail("'Fix parser crash on empty input' must only replace parser.py by parser_fixed.py")

rel = git("rev-list", "refs/heads/release/1.x").split()
if len(rel) != 2 or rel[1] != root:
    fail("release/1.x must have exactly 2 commits, starting at 'Initial version'")
pick = rel[0]
if parents(pick) != [root]:
    fail("the back-port must sit directly on 'Initial version'")
if subject(pick) != "Fix parser crash on empty input":
    fail("the back-port must keep the subject, got %r" % subject(pick))
if "(cherry picked from commit %s)" % fix not in git("log", "-1", "--format=%B", pick).splitlines():
    fail("the back-port message must contain '(cherry picked from commit %s)'" % fix)
if tree(pick) != {"README.md": README, "parser.py": PARSER_FIXED}:
    fail("release/1.x must contain the fixed parser.py and README.md only, got %s" % sorted(tree(pick)))

if git("cat-file", "-t", "v1.0") != "commit" or git("rev-parse", "v1.0") != root:
    fail("v1.0 must be a lightweight tag on 'Initial version'")
if git("cat-file", "-t", "v1.0.1") != "tag" or git("rev-parse", "v1.0.1^{commit}") != pick:
    fail("v1.0.1 must be an annotated tag on the tip of release/1.x")
if git("for-each-ref", "--format=%(contents)", "refs/tags/v1.0.1").strip() != "Hotfix release":
    fail("v1.0.1 must have the message 'Hotfix release'")
if git("status", "--porcelain"):
    fail("working tree is not clean")
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
