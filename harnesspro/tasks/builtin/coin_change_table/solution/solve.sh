#!/bin/bash
# Reference solution: two bottom-up dynamic programs over the amounts.

cat > /workspace/change.py <<'PY'
coins = sorted(int(x) for x in open("/workspace/coins.txt").read().split())
amounts = [int(x) for x in open("/workspace/amounts.txt").read().split()]
top = max(amounts + [0])
INF = top + 1
fewest = [0] + [INF] * top
for v in range(1, top + 1):
    fewest[v] = min([fewest[v - c] + 1 for c in coins if c <= v] + [INF])
ways = [1] + [0] * top
for c in coins:
    for v in range(c, top + 1):
        ways[v] += ways[v - c]
with open("/workspace/change.txt", "w") as out:
    for a in amounts:
        out.write("%d %d %d\n" % (a, -1 if fewest[a] >= INF else fewest[a], ways[a]))
PY

python3 /workspace/change.py
