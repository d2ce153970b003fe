#!/bin/bash
# Verifier: exact comparison of the merged busy periods.
mkdir -p /logs/verifier
python3 -I - <<'PYEOF'
import sys
EXPECTED = """Atlas 07:10-07:40
Atlas 08:30-10:30
Atlas 10:55-13:20
Atlas 15:05-17:10
Atlas 17:15-17:35
Atlas 17:50-19:20
Atlas 19:30-19:45
Atlas 19:50-21:20
Atlas 21:40-22:40
Borealis 06:05-06:35
Borealis 08:20-09:35
Borealis 09:55-10:55
Borealis 11:10-12:15
Borealis 12:25-15:15
Borealis 17:10-18:10
Borealis 19:20-20:20
Borealis 20:30-21:15
Borealis 21:55-22:25
Cobalt 07:10-07:40
Cobalt 07:55-08:10
Cobalt 10:05-11:45
Cobalt 11:50-12:20
Cobalt 12:30-13:00
Cobalt 13:35-15:35
Cobalt 15:45-17:55
Cobalt 19:55-20:25
Delta 06:25-07:55
Delta 08:15-08:35
Delta 09:25-09:55
Delta 11:10-11:25
Delta 11:30-12:30
Delta 12:40-14:10
Delta 14:25-14:55
Delta 15:25-17:15
Delta 17:30-18:30
Delta 18:50-22:25
Ember 06:05-09:25
Ember 10:00-11:40
Ember 11:45-16:45
Ember 16:50-17:05
Ember 18:10-19:30
Ember 20:30-21:00
Ember 21:20-21:35
Ember 21:55-22:55
Fjord 06:05-09:25
Fjord 10:25-11:55
Fjord 12:10-12:55
Fjord 13:05-13:35
Fjord 14:45-15:00
Fjord 17:50-18:10
Fjord 20:15-22:15
Granite 06:05-06:20
Granite 06:30-06:45
Granite 07:45-08:30
Granite 08:40-09:40
Granite 10:15-11:45
Granite 12:50-13:50
Granite 14:50-18:00
Granite 21:40-22:00
Harbor 06:10-07:20
Harbor 07:45-08:00
Harbor 09:20-09:50
Harbor 10:00-11:00
Harbor 11:05-13:30
Harbor 13:40-14:55
Harbor 15:30-16:15
Indigo 06:50-13:00
Indigo 14:00-16:40
Indigo 19:15-20:05
Indigo 20:15-21:35
Juniper 06:00-06:55
Juniper 07:55-09:45
Juniper 10:30-11:15
Juniper 11:55-12:15
Juniper 12:35-12:55
Juniper 14:10-14:40
Juniper 14:50-15:55
Juniper 16:10-16:30
Juniper 17:30-19:10
Juniper 20:25-20:45
Kestrel 06:15-08:20
Kestrel 08:30-08:50
Kestrel 11:10-11:40
Kestrel 11:55-14:25
Kestrel 16:15-17:10
Kestrel 17:40-18:40
Kestrel 18:50-19:20
Kestrel 19:50-20:50
Kestrel 21:35-21:55
Lumen 06:35-08:45
Lumen 11:10-12:00
Lumen 12:10-15:35
Lumen 16:00-18:05
Lumen 18:35-19:05
Lumen 19:50-20:30
Lumen 21:15-21:45
Meridian 09:05-10:30
Meridian 12:05-14:25
Meridian 14:45-15:35
Meridian 15:55-17:40
Meridian 18:30-18:50
Meridian 20:00-20:20
Meridian 21:15-22:20
Nimbus 06:20-07:20
Nimbus 07:45-08:00
Nimbus 08:35-11:15
Nimbus 11:55-13:10
Nimbus 16:00-16:45
Nimbus 17:30-18:40
Nimbus 19:00-20:05
Nimbus 20:10-22:05
Onyx 06:25-07:55
Onyx 08:05-09:15
Onyx 10:00-15:55
Onyx 16:35-19:15
Onyx 19:45-20:05
Onyx 20:45-21:05
Onyx 21:45-22:15
"""
try:
    got = open("/workspace/busy.txt").read()
except OSError as e:
    print("FAIL: cannot read /workspace/busy.txt:", e)
    sys.exit(1)
if got != EXPECTED:
    exp_l, got_l = EXPECTED.splitlines(), got.splitlines()
    print("FAIL: busy.txt differs (%d lines expected, %d found)" % (len(exp_l), len(got_l)))
    for i, (a, b) in enumerate(zip(exp_l, got_l)):
        if a != b:
            print("first difference at line %d: expected %r, got %r" % (i + 1, a, b))
            break
    sys.exit(1)
print("PASS")
PYEOF
if [ $? -eq 0 ]; then echo 1 > /logs/verifier/reward.txt; exit 0; fi
echo 0 > /logs/verifier/reward.txt
exit 1
