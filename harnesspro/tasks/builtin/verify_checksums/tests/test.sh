#!/bin/bash
# Verifier: checks failed.txt, unlisted.txt and which files ended up in downloads/ and quarantine/ (by content hash).
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, os, sys

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

EXPECTED = {
    "/workspace/failed.txt": "docs.html\nfirmware.bin.txt\ninstaller-1.4.2.exe\n",
    "/workspace/unlisted.txt": "checksums-howto.txt\nextra-readme.txt\npatch-2024-06.diff\n",
}
for path, exp in EXPECTED.items():
    try:
        got = open(path).read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
    if got != exp:
        fail("%s: expected %r, got %r" % (path, exp, got))

QUARANTINE = {
    "docs.html": "e6da2b06f000eab0cfd3db7065b500e5de1de2d706eae2d799b39d5a0eda79e6",
    "firmware.bin.txt": "2fe66209cb67628bd6607cc79608940bb50e9e16d41a7c9fad7b0466d4a7de6b",
}
STAY = ["LICENSE", "SHA256SUMS", "checksums-howto.txt", "config-sample.ini", "extra-readme.txt",
        "patch-2024-06.diff", "release-notes.md", "tool-1.4.2.sig", "tool-1.4.2.tar.gz.txt"]
q = "/workspace/quarantine"
if not os.path.isdir(q) or sorted(os.listdir(q)) != sorted(QUARANTINE):
    fail("/workspace/quarantine must contain exactly %s, found %s" % (sorted(QUARANTINE), sorted(os.listdir(q)) if os.path.isdir(q) else None))
for name, sha in QUARANTINE.items():
    if digest(os.path.join(q, name)) != sha:
        fail("quarantine/%s was modified" % name)
d = "/workspace/downloads"
if sorted(os.listdir(d)) != sorted(STAY):
    fail("/workspace/downloads must contain exactly %s, found %s" % (sorted(STAY), sorted(os.listdir(d))))
for line in open(os.path.join(d, "SHA256SUMS")).read().splitlines():
    sha, name = line[:64], line[66:]
    if name in STAY and digest(os.path.join(d, name)) != sha:
        fail("downloads/%s was modified" % name)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
