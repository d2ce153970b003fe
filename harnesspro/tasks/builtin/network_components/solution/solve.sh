#!/bin/bash
# Reference solution: union-find over the links in python3.

cat > /workspace/clusters.py <<'PY'
parent = {}
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for host in open("/workspace/hosts.txt").read().split():
    parent[host] = host
for line in open("/workspace/links.txt"):
    parts = line.split()
    if len(parts) == 2:
        a, b = find(parts[0]), find(parts[1])
        if a != b:
            parent[max(a, b)] = min(a, b)
groups = {}
for host in parent:
    groups.setdefault(find(host), []).append(host)
clusters = [sorted(g, key=lambda s: s.encode()) for g in groups.values()]
clusters.sort(key=lambda c: (-len(c), c[0].encode()))
open("/workspace/clusters.txt", "w").write("".join(" ".join(c) + "\n" for c in clusters))
PY

python3 /workspace/clusters.py
