#!/bin/bash
# Reference solution: Dijkstra for the weighted cost, BFS for moves and reachability.

cat > /workspace/route.py <<'PY'
import collections
import heapq
grid = open("/workspace/maze.txt").read().split("\n")
grid = [row for row in grid if row]
cells = {(y, x): ch for y, row in enumerate(grid) for x, ch in enumerate(row) if ch != "#"}
start = next(p for p, ch in cells.items() if ch == "S")
goal = next(p for p, ch in cells.items() if ch == "E")
def neighbours(p):
    y, x = p
    for q in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
        if q in cells:
            yield q
cost = {start: 0}
heap = [(0, start)]
while heap:
    d, p = heapq.heappop(heap)
    if d > cost[p]:
        continue
    for q in neighbours(p):
        nd = d + (4 if cells[q] == "~" else 1)
        if nd < cost.get(q, float("inf")):
            cost[q] = nd
            heapq.heappush(heap, (nd, q))
moves = {start: 0}
queue = collections.deque([start])
while queue:
    p = queue.popleft()
    for q in neighbours(p):
        if q not in moves:
            moves[q] = moves[p] + 1
            queue.append(q)
with open("/workspace/route.txt", "w") as f:
    f.write("%d\n%d\n%d\n" % (cost[goal], moves[goal], len(moves)))
PY

python3 /workspace/route.py
