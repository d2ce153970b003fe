#!/bin/bash
# Verifier: checks the current link, the modes in the active release's bin/ and the links in /workspace/bin.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import os, stat, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

if not os.path.islink("/workspace/current"):
    fail("/workspace/current must be a symbolic link")
if os.readlink("/workspace/current") != "releases/1.10.0":
    fail("/workspace/current must point to 'releases/1.10.0', got %r" % os.readlink("/workspace/current"))
BIN = "/workspace/releases/1.10.0/bin"
MODES = {"deploy": 0o755, "status": 0o755, "rollback": 0o755, "notes.txt": 0o644, "common.sh": 0o644, "motd": 0o644}
for name, mode in MODES.items():
    st = os.lstat(os.path.join(BIN, name))
    if not stat.S_ISREG(st.st_mode):
        fail("%s/%s must still be a regular file" % (BIN, name))
    if stat.S_IMODE(st.st_mode) != mode:
        fail("%s/%s must have mode %o, has %o" % (BIN, name, mode, stat.S_IMODE(st.st_mode)))
if not os.path.isdir("/workspace/bin") or os.path.islink("/workspace/bin"):
    fail("/workspace/bin must be a folder")
entries = sorted(os.listdir("/workspace/bin"))
if entries != ["deploy", "rollback", "status"]:
    fail("/workspace/bin must contain exactly deploy, rollback, status; found %s" % entries)
for name in entries:
    path = os.path.join("/workspace/bin", name)
    if not os.path.islink(path) or os.readlink(path) != "../current/bin/" + name:
        fail("%s must be a symbolic link to '../current/bin/%s'" % (path, name))
    if os.path.realpath(path) != os.path.join(BIN, name):
        fail("%s does not resolve to %s/%s" % (path, BIN, name))
for rel in ("releases/1.10.0/bin/completions/deploy.bash", "releases/1.9.3/bin/status", "releases/1.2.0/bin/README"):
    if not os.path.isfile(os.path.join("/workspace", rel)):
        fail("/workspace/%s must be left in place" % rel)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
