#!/bin/bash
# Reference solution: Kahn's algorithm with a min-heap of ready names.

cat > /workspace/toposort.py <<'PY'
import heapq
import sys
deps = {}
for raw in open(sys.argv[1]):
    line = raw.strip()
    if not line or line.startswith("#"):
        continue
    target, rest = line.split(":", 1)
    target = target.strip()
    deps.setdefault(target, set())
    for d in rest.split():
        deps.setdefault(d, set())
        deps[target].add(d)
waiting = {n: len(ds) for n, ds in deps.items()}
users = {n: [] for n in deps}
for n, ds in deps.items():
    for d in ds:
        users[d].append(n)
ready = [n for n, k in waiting.items() if k == 0]
heapq.heapify(ready)
order = []
while ready:
    n = heapq.heappop(ready)
    order.append(n)
    for m in users[n]:
        waiting[m] -= 1
        if waiting[m] == 0:
            heapq.heappush(ready, m)
left = sorted(set(deps) - set(order))
if left:
    order.append("CYCLE: " + " ".join(left))
with open(sys.argv[2], "w") as f:
    f.write("".join(line + "\n" for line in order))
PY

python3 /workspace/toposort.py /workspace/deps.txt /workspace/order.txt && python3 /workspace/toposort.py /workspace/plugins.txt /workspace/plugins_order.txt
