#!/bin/bash
# Verifier: exact file names, unchanged contents and modes in /workspace/inbox.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, os, stat, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

EXPECTED = {
    "clean_up_temp.sh": "f8ffa4cd6c39de0539927d0c1fa8a83b584819d9b1122730f86c0988f0b5155d",
    "data__export_2024.csv": "c15097c46e6dbfe67d8106c18b850ff4312898c146771669ae50324f910ed93c",
    "my_photo_01.jpg": "d7fa1b017229011e1b00cdf7a0ebc2d54f241502f3dd5d89df334efd9e762e6a",
    "quarterly_report.pdf": "8c0d471ed5c27555ef0391e24d1f9be41ab6e8bc855aab8bc367f1950ccac1f3",
    "readme": "8236a037518344aa2dc99c0d12b8ed528824d0668fa9337b2954e21eafac8b35",
    "run-backup.sh": "3dc53d8cf365fd1c2c88fde1e383c6d9cdf773101e42c9e664b3cfa65093e56f",
    "deploy.sh": "044cf6ccded2a6d7420ab6e2f157c3750e1d189084e7aa10422c6da15dc27a85",
    "notes_draft.txt": "539b0a815d183983e95cafd0e66fd426fc2ffa59beb0741cfed256e06b307952",
}
INBOX = "/workspace/inbox"
try:
    names = sorted(os.listdir(INBOX))
except OSError as e:
    fail("cannot list %s: %s" % (INBOX, e))
if names != sorted(EXPECTED):
    fail("file names: expected %s, got %s" % (sorted(EXPECTED), names))
for name, digest in EXPECTED.items():
    path = os.path.join(INBOX, name)
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode):
        fail("%s is not a regular file" % name)
    if hashlib.sha256(open(path, "rb").read()).hexdigest() != digest:
        fail("content of %s changed (or it was renamed from the wrong file)" % name)
    want = 0o755 if name.endswith(".sh") else 0o644
    if stat.S_IMODE(st.st_mode) != want:
        fail("%s: mode %o, expected %o" % (name, stat.S_IMODE(st.st_mode), want))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
