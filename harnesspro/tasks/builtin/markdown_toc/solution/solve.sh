#!/bin/bash
# Reference solution: awk collects the headings outside code fences, python builds the slugs.

awk '/^```/ { fence = !fence; next } !fence && /^(#|##|###) / { match($0, /^#+/); t = substr($0, RLENGTH + 2); gsub(/^[ \t]+|[ \t]+$/, "", t); print RLENGTH "\t" t }' /workspace/guide.md > /workspace/headings.tsv

python3 - <<'PY'
import re
seen, out = {}, []
for line in open("/workspace/headings.tsv").read().splitlines():
    level, text = line.split("\t", 1)
    slug = re.sub(r"[^a-z0-9 -]", "", text.lower()).replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    out.append("  " * (int(level) - 1) + "- [%s](#%s)\n" % (text, slug if n == 0 else "%s-%d" % (slug, n)))
open("/workspace/toc.md", "w").write("".join(out))
PY
