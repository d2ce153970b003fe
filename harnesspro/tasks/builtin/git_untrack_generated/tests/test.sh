#!/bin/bash
# Verifier: checks both commits of /workspace/app (trees by blob id), the .gitignore and the files left on disk.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, subprocess, sys

REPO = "/workspace/app"
FILES = {
    "README.md": "96bedc116d56bd93bba8c71b2653c0492d0eeb51",
    "out/assets/site.css": "693ce9b84057d37872139150e32284abbbe76754",
    "out/index.html": "e941572d3c245938c0c0bdf01a91046e1542a98d",
    "output_notes.md": "fe2b0fb1c33bb85985082fdd86a3f6464b2e0018",
    "render.log": "87dee4e68070298ee6e790c6edd1179a2908cb1a",
    "requirements.txt": "d5c6520112f39986b68b6f5f8d89eae3460523ac",
    "src/app.py": "e3b30b514fcaff6e955174abf2d46b4bafc89be3",
    "src/debug.log": "aea853a6d8c9622e96abaea94d0a1976da8b9624",
    "src/util.py": "90627475b55c2692bd780776d0e58c092609ef76",
    "src/util.pyc": "3e717a42a07baa8effcf61665198d4e3447c776f",
}
GITIGNORE = "out/\n*.log\n*.pyc\n"
KEPT = ["README.md", "output_notes.md", "requirements.txt", "src/app.py", "src/util.py"]

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def git(*args):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail("git %s failed: %s" % (" ".join(args), p.stderr.strip()))
    return p.stdout

def tree(rev):
    out = {}
    for line in git("ls-tree", "-r", rev).splitlines():
        meta, path = line.split("\t", 1)
        out[path] = meta.split()[2]
    return out

if not os.path.isdir(os.path.join(REPO, ".git")):
    fail("/workspace/app is not a git repository")
if git("symbolic-ref", "--short", "HEAD").strip() != "main":
    fail("branch main must be checked out")
revs = git("rev-list", "--first-parent", "main").split()
if len(revs) != 2 or git("rev-list", "--count", "main").strip() != "2":
    fail("main must have exactly 2 commits, found %d" % len(revs))
second, first = revs
if git("log", "-1", "--format=%B", first).strip() != "Import project":
    fail("first commit message must be 'Import project'")
if git("log", "-1", "--format=%B", second).strip() != "Stop tracking generated files":
    fail("second commit message must be 'Stop tracking generated files'")
t1 = tree(first)
if t1 != FILES:
    fail("first commit must contain exactly the original files; got %s" % sorted(t1))
gi_blob = subprocess.run(["git", "hash-object", "--stdin"], input=GITIGNORE, capture_output=True, text=True).stdout.strip()
want2 = {p: FILES[p] for p in KEPT}
want2[".gitignore"] = gi_blob
t2 = tree(second)
if t2 != want2:
    fail("second commit must contain %s (with the exact .gitignore); got %s" % (sorted(want2), sorted(t2)))
try:
    if open(os.path.join(REPO, ".gitignore")).read() != GITIGNORE:
        fail(".gitignore on disk has the wrong content")
except OSError as e:
    fail("cannot read .gitignore: %s" % e)
for path, blob in FILES.items():
    full = os.path.join(REPO, path)
    if not os.path.isfile(full):
        fail("%s was removed from disk" % path)
    if git("hash-object", full).strip() != blob:
        fail("%s changed on disk" % path)
if git("status", "--porcelain", "--untracked-files=all").strip():
    fail("working tree is not clean:\n" + git("status", "--porcelain"))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
