#!/bin/bash
# Verifier: inspects the archive members and content, the manifest, permissions and what is left in reports/.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, os, stat, sys, tarfile

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

LOGS = {
    "2023/q4/app.log": "683ac27764f1a8d08f20c9819677151653d60b5420c7de78f4a9f61ffb6e96b4",
    "2024/feb/web server.log": "3f4d56c8a149597bf0ccfd73d44fdee7dcbc501e75b68a15770ad2589b446168",
    "2024/jan/app.log": "a46c9203bd8c82bd95e30528b751986de1358ef70789cf4dd35e211c915b5603",
    "2024/jan/worker.log": "339e078c78323704b5b5e081053ccebbed52110f1471ef2f7fdfede3a492c359",
    "2024/mar/err.log": "a62d2faa50d493725c347fd026f731ac5eb49bf1a73ee6d8c9fd7ceffa9806f3",
    "cron.log": "2a951814cbcc736aa3504c068f54c1248a202aa160490fe7ee6e7bfd722095a5",
}
KEEP = {
    "2023/q4/DEBUG.LOG": "64f03615b6d72a17a866cf80018f9175de49560620377235ba06eeccec898c6e",
    "2023/q4/notes.txt": "5361aabbdde130376927a34abb7f2258201a7b129e218de749a7e8c430b599f7",
    "2023/q4/summary.csv": "ec9e04b93d3e317a44e97a11be1552b7241d171ae23110d203352cae3624aaa5",
    "2024/feb/old/archive.log.txt": "94baca62663103e728e7d84a1931724c9df62eedf8ea0d156cf6f379d3cfb049",
    "2024/feb/readme.txt": "87b3ce9be0f541d5bcb96d0d3acf9995f65bbffeeaf4a52e064407c15144cf5d",
    "2024/jan/data.csv": "c32b95b49bc6081c7cfe6a165983cb4356a515d3a73a2cfb3efd66cef98f43cb",
    "index.txt": "85542cc78c80bada3e9ad089cbef5ff41428c6b68107ed49f98398a617495f8f",
}
ARCHIVE = "/workspace/backup/logs.tar.gz"

try:
    with open(ARCHIVE, "rb") as f:
        if f.read(2) != b"\x1f\x8b":
            fail("logs.tar.gz is not gzip-compressed")
    tar = tarfile.open(ARCHIVE, "r:gz")
    members = tar.getmembers()
except (OSError, tarfile.TarError) as e:
    fail("cannot open %s: %s" % (ARCHIVE, e))
names = [m.name for m in members]
if sorted(names) != sorted(LOGS):
    fail("archive members: expected %s, got %s" % (sorted(LOGS), sorted(names)))
for m in members:
    if not m.isfile():
        fail("member %r is not a regular file" % m.name)
    digest = hashlib.sha256(tar.extractfile(m).read()).hexdigest()
    if digest != LOGS[m.name]:
        fail("content of member %r changed" % m.name)
if stat.S_IMODE(os.stat(ARCHIVE).st_mode) != 0o600:
    fail("archive mode must be 600, is %o" % stat.S_IMODE(os.stat(ARCHIVE).st_mode))

expected_manifest = "".join(n + "\n" for n in sorted(LOGS, key=lambda s: s.encode()))
try:
    manifest = open("/workspace/backup/manifest.txt").read()
except OSError as e:
    fail("cannot read manifest: %s" % e)
if manifest != expected_manifest:
    fail("manifest.txt: expected %r, got %r" % (expected_manifest, manifest))

left = {}
for dp, dn, fn in os.walk("/workspace/reports"):
    for f in fn:
        p = os.path.join(dp, f)
        left[os.path.relpath(p, "/workspace/reports")] = hashlib.sha256(open(p, "rb").read()).hexdigest()
if left != KEEP:
    fail("files left in reports/: expected %s, got %s" % (sorted(KEEP), sorted(left)))
for d in ("2023/q4", "2024/jan", "2024/feb/old", "2024/mar"):
    if not os.path.isdir(os.path.join("/workspace/reports", d)):
        fail("directory reports/%s must be kept" % d)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
