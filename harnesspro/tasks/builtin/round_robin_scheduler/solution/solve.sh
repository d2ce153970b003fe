#!/bin/bash
# Reference solution: an event-by-event simulation in python3 with exact averaging.

cat > /workspace/rr.py <<'PY'
import csv
from collections import deque
from fractions import Fraction
Q = 4
jobs = [(r["job"], int(r["arrival"]), int(r["burst"])) for r in csv.DictReader(open("/workspace/jobs.csv"))]
order = sorted(range(len(jobs)), key=lambda i: (jobs[i][1], i))
left = [b for _, _, b in jobs]
finish, queue, timeline = {}, deque(), []
t = nxt = 0
def admit(now):
    global nxt
    while nxt < len(order) and jobs[order[nxt]][1] <= now:
        queue.append(order[nxt])
        nxt += 1
def record(start, end, who):
    if timeline and timeline[-1][2] == who and timeline[-1][1] == start:
        timeline[-1][1] = end
    elif end > start:
        timeline.append([start, end, who])
admit(t)
while len(finish) < len(jobs):
    if not queue:
        record(t, jobs[order[nxt]][1], "idle")
        t = jobs[order[nxt]][1]
        admit(t)
        continue
    i = queue.popleft()
    run = min(Q, left[i])
    record(t, t + run, jobs[i][0])
    t += run
    left[i] -= run
    admit(t)
    if left[i]:
        queue.append(i)
    else:
        finish[i] = t
lines, total = [], 0
for i, (name, arrival, burst) in enumerate(jobs):
    wait = finish[i] - arrival - burst
    total += wait
    lines.append("%s %d %d %d" % (name, finish[i], finish[i] - arrival, wait))
cents = int(Fraction(total * 100, len(jobs)) + Fraction(1, 2))
lines.append("average_waiting %d.%02d" % (cents // 100, cents % 100))
open("/workspace/schedule.txt", "w").write("\n".join(lines) + "\n")
open("/workspace/timeline.txt", "w").write("".join("%d-%d %s\n" % tuple(s) for s in timeline))
PY

python3 /workspace/rr.py
