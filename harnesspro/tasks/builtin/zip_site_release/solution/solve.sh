#!/bin/bash
# Reference solution: select the files with find, zip them with python3's zipfile, checksum with sha256sum.

cd /workspace/site && find . -type f ! -name '*.map' ! -name '.*' ! -path './drafts/*' | sed 's|^\./||' | LC_ALL=C sort > /tmp/members.txt && mkdir -p /workspace/dist && python3 -c '
import sys, zipfile
names = open("/tmp/members.txt").read().split("\n")[:-1]
with zipfile.ZipFile("/workspace/dist/site-2.3.0.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for n in names:
        z.write(n, "site-2.3.0/" + n)
'

rm -rf /tmp/stage && mkdir -p /tmp/stage && cd /tmp/stage && python3 -c 'import zipfile; zipfile.ZipFile("/workspace/dist/site-2.3.0.zip").extractall(".")' && python3 -c 'import zipfile; print("\n".join(zipfile.ZipFile("/workspace/dist/site-2.3.0.zip").namelist()))' | xargs -d '\n' sha256sum > /workspace/dist/MANIFEST.sha256

cd /workspace/dist && sha256sum site-2.3.0.zip > site-2.3.0.zip.sha256
