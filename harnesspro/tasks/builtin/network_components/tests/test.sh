#!/bin/bash
# Verifier: recomputes the clusters from the (unchanged) inputs with a BFS and compares /workspace/clusters.txt.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import hashlib, sys
from collections import deque

def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

SHAS = {"/workspace/hosts.txt": "bb5cc7aa0cc1d6a914c873d5d3a4ac6ab4f782a0481e951fc18022973260f949", "/workspace/links.txt": "0a81988187334f97ab87594623515596e21937dc838dd75a8e355207eca7baa2"}
for path, sha in SHAS.items():
    try:
        if hashlib.sha256(open(path, "rb").read()).hexdigest() != sha:
            fail("%s was modified" % path)
    except OSError as e:
        fail("cannot read %s: %s" % (path, e))
hosts = open("/workspace/hosts.txt").read().split()
adj = {h: set() for h in hosts}
for line in open("/workspace/links.txt").read().splitlines():
    a, b = line.split()
    adj[a].add(b)
    adj[b].add(a)
seen, clusters = set(), []
for h in hosts:
    if h in seen:
        continue
    seen.add(h)
    queue, comp = deque([h]), []
    while queue:
        x = queue.popleft()
        comp.append(x)
        for y in adj[x] - seen:
            seen.add(y)
            queue.append(y)
    clusters.append(sorted(comp))
clusters.sort(key=lambda c: (-len(c), c[0]))
expected = "".join(" ".join(c) + "\n" for c in clusters)
try:
    got = open("/workspace/clusters.txt").read()
except OSError as e:
    fail("cannot read /workspace/clusters.txt: %s" % e)
if got != expected:
    g, e = got.split("\n"), expected.split("\n")
    i = next(i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i])
    fail("line %d: expected %r, got %r" % (i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
print("PASS (%d clusters)" % len(clusters))
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
