#!/bin/bash
# Verifier: inspects the release zip (members, compression, content), the manifest and the zip checksum.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, os, sys, zipfile

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

SOURCE = {
    '.DS_Store': '91bbb0923e6d5170ae7ec936a0c1805004d199df4ffccda6ecbd2dea2b5808f4',
    'about.html': '5eae797f3f413512da0e0a5b0527b999afa5e52835f4eb69e0415e0c167a1eb7',
    'blog/drafts-2023.html': '0075cfcafe499f8a2a6fe01a0fd753188dc77ae210ec0305b0e0bec47b5c95ec',
    'blog/hello.html': '1f57f520c9180713d91fddad77655c74a44572a1c03bb0539a9e5dbc96431bfa',
    'css/main.css': '16d219dcd6eb1bba61fb0f71167b8e1b8596438d30102b406fa9a58fb932e827',
    'css/main.css.map': '746bf4371da7b513a428d644850c66730709996c2a36c83af88116383f975ad9',
    'drafts/img/sketch.svg': 'fb91f9a03c202c5f160eef644da6f2f704b19ac5c5f8b4c124e1b0b485ad57a0',
    'drafts/post.md': '4c2d630f52dbd63f8b8df5b75cf44b299a85be927bcf7b13a7b2e5636dbd17c4',
    'images/logo.svg': 'aa2fbed826ad828e627f005d04c1d34d49bde22e0520d9d76d9237d4d08e2a4b',
    'index.html': '06aa21cf625eb9e0ba7095a3670ed90d16c298fe5912233a139a71466c256387',
    'js/.eslintrc': 'b02baa1125390fc8541d42264fa12cd1454f8f6d78982f24506e085549df6715',
    'js/app.js': '835f4708c219d91c75ce4f4677c5e74d8b49b013d05c6c34c8b86cf4af198a15',
    'js/app.js.map': 'b6fc8257765f4b93eff8f0e10f528412853d5f199f7ce2186416fa28b8118ff2',
    'robots.txt': '347d720d3e455a6f3fc9ef5e94932cdd2c97150cb8aba7541e56a046f7967799',
    'sitemap.map.txt': '537965d37f0053c1d966afb31f5326e1e12628a5b56d8874c2f18f727bd63ecc',
}
MEMBERS = ["about.html", "blog/drafts-2023.html", "blog/hello.html", "css/main.css", "images/logo.svg",
           "index.html", "js/app.js", "robots.txt", "sitemap.map.txt"]
for rel, sha in SOURCE.items():
    path = os.path.join("/workspace/site", rel)
    if not os.path.isfile(path) or hashlib.sha256(open(path, "rb").read()).hexdigest() != sha:
        fail("/workspace/site/%s is missing or was modified" % rel)
ZIP = "/workspace/dist/site-2.3.0.zip"
try:
    z = zipfile.ZipFile(ZIP)
except (OSError, zipfile.BadZipFile) as e:
    fail("cannot open %s: %s" % (ZIP, e))
names = [i.filename for i in z.infolist()]
want = ["site-2.3.0/" + m for m in MEMBERS]
if names != want:
    fail("zip members must be exactly (in this order) %s, got %s" % (want, names))
manifest = ""
for info, rel in zip(z.infolist(), MEMBERS):
    if info.compress_type != zipfile.ZIP_DEFLATED:
        fail("%s is not DEFLATE-compressed" % info.filename)
    data = z.read(info)
    if hashlib.sha256(data).hexdigest() != SOURCE[rel]:
        fail("%s has the wrong content" % info.filename)
    manifest += "%s  %s\n" % (SOURCE[rel], info.filename)
try:
    got = open("/workspace/dist/MANIFEST.sha256").read()
except OSError as e:
    fail("cannot read MANIFEST.sha256: %s" % e)
if got != manifest:
    fail("MANIFEST.sha256: expected %r, got %r" % (manifest, got))
zsum = "%s  site-2.3.0.zip\n" % hashlib.sha256(open(ZIP, "rb").read()).hexdigest()
try:
    got = open("/workspace/dist/site-2.3.0.zip.sha256").read()
except OSError as e:
    fail("cannot read site-2.3.0.zip.sha256: %s" % e)
if got != zsum:
    fail("site-2.3.0.zip.sha256: expected %r, got %r" % (zsum, got))
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
