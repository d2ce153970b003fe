#!/bin/bash
# Reference solution: let sha256sum -c do the checking, then move the mismatches and compare name lists.

cd /workspace/downloads && { sha256sum -c SHA256SUMS 2>/dev/null || true; } | sed -n 's/: FAILED.*$//p' | LC_ALL=C sort > /workspace/failed.txt

mkdir -p /workspace/quarantine && cd /workspace/downloads && while read -r name; do if [ -f "$name" ]; then mv "$name" /workspace/quarantine/; fi; done < /workspace/failed.txt

cd /workspace/downloads && sed -E 's/^[0-9a-f]{64} [ *]//' SHA256SUMS | LC_ALL=C sort > /tmp/listed.txt && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort | LC_ALL=C comm -23 - /tmp/listed.txt > /workspace/unlisted.txt
