#!/bin/bash
# Verifier: inspects the repository in /workspace/proj with git plumbing commands.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

REPO = "/workspace/proj"

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def git(*args):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("git %s failed: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout

if not os.path.isdir(os.path.join(REPO, ".git")):
    fail("/workspace/proj is not a git repository")
if git("symbolic-ref", "--short", "HEAD").strip() != "main":
    fail("current branch is not main")
if git("rev-list", "--count", "HEAD").strip() != "1":
    fail("expected exactly one commit")
if git("log", "-1", "--format=%s").strip() != "Initial import" or git("log", "-1", "--format=%b").strip():
    fail("commit message must be 'Initial import'")
if git("log", "-1", "--format=%an <%ae>").strip() != "Release Bot <bot@tidyclock.dev>":
    fail("wrong author: " + git("log", "-1", "--format=%an <%ae>").strip())
files = sorted(git("ls-tree", "-r", "--name-only", "HEAD").split())
if files != [".gitignore", "LICENSE", "README.md", "src/tidyclock.py"]:
    fail("unexpected committed files: %s" % files)
if git("show", "HEAD:.gitignore") != "*.tmp\n":
    fail(".gitignore content must be exactly '*.tmp\\n'")
if git("show", "HEAD:src/tidyclock.py") != open(os.path.join(REPO, "src/tidyclock.py")).read():
    fail("committed src/tidyclock.py differs from the file on disk")
if "OFFSETS" not in git("show", "HEAD:src/tidyclock.py"):
    fail("src/tidyclock.py content was changed")
for f in ("notes.tmp", "scratch/draft.tmp"):
    if not os.path.isfile(os.path.join(REPO, f)):
        fail("%s must stay on disk" % f)
if git("cat-file", "-t", "v0.1.0").strip() != "tag":
    fail("v0.1.0 is not an annotated tag")
if git("rev-parse", "v0.1.0^{commit}").strip() != git("rev-parse", "HEAD").strip():
    fail("v0.1.0 does not point at the commit")
if git("tag", "-l", "--format=%(contents)", "v0.1.0").strip() != "First release":
    fail("tag message must be 'First release'")
if git("status", "--porcelain").strip():
    fail("working tree is not clean:\n" + git("status", "--porcelain"))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
