#!/bin/bash
# Verifier: compares the schedule and the CPU timeline with the expected round-robin simulation (quantum 4).
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
SCHEDULE = (
    'J18 171 43 36\n'
    'J27 256 18 14\n'
    'J26 257 19 18\n'
    'J16 187 64 50\n'
    'J25 278 41 32\n'
    'J24 277 45 33\n'
    'J13 160 48 38\n'
    'J05 66 52 40\n'
    'J03 13 4 0\n'
    'J12 123 11 9\n'
    'J19 172 42 37\n'
    'J15 142 19 15\n'
    'J17 188 65 52\n'
    'J14 127 12 8\n'
    'J11 113 2 0\n'
    'J23 269 41 29\n'
    'J20 185 54 45\n'
    'J06 27 12 10\n'
    'J04 62 50 38\n'
    'J10 130 19 12\n'
    'J01 7 2 0\n'
    'J28 261 18 15\n'
    'J22 258 33 24\n'
    'J29 314 11 0\n'
    'J09 37 16 14\n'
    'J21 232 11 4\n'
    'J02 50 41 32\n'
    'J08 70 49 37\n'
    'J07 54 35 27\n'
    'average_waiting 23.07\n'
)
TIMELINE = (
    '0-5 idle\n'
    '5-7 J01\n'
    '7-9 idle\n'
    '9-13 J03\n'
    '13-17 J02\n'
    '17-21 J04\n'
    '21-25 J05\n'
    '25-27 J06\n'
    '27-31 J02\n'
    '31-35 J07\n'
    '35-37 J09\n'
    '37-41 J08\n'
    '41-45 J04\n'
    '45-49 J05\n'
    '49-50 J02\n'
    '50-54 J07\n'
    '54-58 J08\n'
    '58-62 J04\n'
    '62-66 J05\n'
    '66-70 J08\n'
    '70-111 idle\n'
    '111-113 J11\n'
    '113-117 J10\n'
    '117-121 J13\n'
    '121-123 J12\n'
    '123-127 J14\n'
    '127-130 J10\n'
    '130-134 J13\n'
    '134-138 J16\n'
    '138-142 J15\n'
    '142-146 J17\n'
    '146-150 J18\n'
    '150-154 J19\n'
    '154-158 J20\n'
    '158-160 J13\n'
    '160-164 J16\n'
    '164-168 J17\n'
    '168-171 J18\n'
    '171-172 J19\n'
    '172-176 J20\n'
    '176-180 J16\n'
    '180-184 J17\n'
    '184-185 J20\n'
    '185-187 J16\n'
    '187-188 J17\n'
    '188-221 idle\n'
    '221-225 J21\n'
    '225-229 J22\n'
    '229-232 J21\n'
    '232-236 J23\n'
    '236-240 J22\n'
    '240-244 J24\n'
    '244-248 J23\n'
    '248-252 J25\n'
    '252-256 J27\n'
    '256-257 J26\n'
    '257-258 J22\n'
    '258-261 J28\n'
    '261-265 J24\n'
    '265-269 J23\n'
    '269-273 J25\n'
    '273-277 J24\n'
    '277-278 J25\n'
    '278-303 idle\n'
    '303-314 J29\n'
)
ok = True
for path, expected in (("/workspace/schedule.txt", SCHEDULE), ("/workspace/timeline.txt", TIMELINE)):
    try:
        got = open(path).read()
    except OSError as e:
        print("FAIL: cannot read %s: %s" % (path, e))
        ok = False
        continue
    if got != expected:
        g, e = got.split("\n"), expected.split("\n")
        i = next(i for i in range(max(len(g), len(e))) if i >= len(g) or i >= len(e) or g[i] != e[i])
        print("FAIL: %s line %d: expected %r, got %r" % (path, i + 1, e[i] if i < len(e) else None, g[i] if i < len(g) else None))
        ok = False
if not ok:
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
