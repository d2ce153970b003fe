#!/bin/bash
# Verifier: checks the outputs the instruction names.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'

import os, subprocess, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def expect_text(path, want, strip_ok=False):
    try:
        got = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        fail("cannot read %s: %s" % (path, e))
    if got == want or (strip_ok and got.strip() == want.strip()):
        return
    fail("%s: expected %r, got %r" % (path, want[:300], got[:300]))

def expect_run(argv, want):
    try:
        p = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd="/tmp")
    except (OSError, subprocess.TimeoutExpired) as e:
        fail("%s: %s" % (" ".join(argv), e))
    if p.returncode != 0 or p.stdout != want:
        fail("%s: expected %r (status 0), got %r (status %d) %r" % (" ".join(argv), want, p.stdout[:200], p.returncode, p.stderr[-200:]))

def expect_dirs(paths):
    for path in paths:
        if not os.path.isdir(path):
            fail("missing folder " + path)

def expect_absent(paths):
    for path in paths:
        if os.path.exists(path):
            fail("still there: " + path)

def expect_listing(folder, names):
    try:
        got = sorted(os.listdir(folder))
    except OSError as e:
        fail("cannot list %s: %s" % (folder, e))
    if got != sorted(names):
        fail("%s holds %r, expected %r" % (folder, got, sorted(names)))

def git_check(repo, commits, files, message=None, tag=None):
    def git(*args):
        p = subprocess.run(["git", "-c", "safe.directory=*", "-C", repo, *args], capture_output=True, text=True)
        if p.returncode != 0:
            fail("git %s: %s" % (" ".join(args), p.stderr.strip()[:200]))
        return p.stdout
    if not os.path.isdir(os.path.join(repo, ".git")):
        fail(repo + " is not a git repository")
    if git("rev-list", "--count", "HEAD").strip() != str(commits):
        fail("expected %d commit(s)" % commits)
    if message is not None and git("log", "-1", "--format=%s").strip() != message:
        fail("commit message is not %r" % message)
    tracked = sorted(git("ls-tree", "-r", "--name-only", "HEAD").split())
    if tracked != sorted(files):
        fail("committed files %r, expected %r" % (tracked, sorted(files)))
    if tag is not None and git("rev-parse", tag + "^{commit}").strip() != git("rev-parse", "HEAD").strip():
        fail("tag %s does not name the commit" % tag)

expect_run(['python3', '/workspace/mul.py', '3', '4'], '12\n')
expect_run(['python3', '/workspace/mul.py', '7', '-2'], '-14\n')
expect_run(['python3', '/workspace/mul.py', '0', '5'], '0\n')
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
