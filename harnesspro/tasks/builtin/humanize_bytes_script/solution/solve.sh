#!/bin/bash
# Reference solution: a python3 script using integer arithmetic for the rounding.

printf '#!/usr/bin/env python3\n' > /workspace/humanize && cat >> /workspace/humanize <<'PY'
import sys
if len(sys.argv) < 2:
    sys.stderr.write("usage: humanize SIZE...\n")
    sys.exit(2)
status = 0
units = [("TiB", 1024 ** 4), ("GiB", 1024 ** 3), ("MiB", 1024 ** 2), ("KiB", 1024)]
for arg in sys.argv[1:]:
    if not arg or not all(c in "0123456789" for c in arg):
        sys.stderr.write("humanize: invalid size: %s\n" % arg)
        status = 1
        continue
    n = int(arg)
    if n < 1024:
        print("%d B" % n)
        continue
    name, size = next(u for u in units if n >= u[1])
    tenths = (20 * n + size) // (2 * size)
    print("%d.%d %s" % (tenths // 10, tenths % 10, name))
sys.exit(status)
PY
chmod 755 /workspace/humanize

/workspace/humanize $(cat /workspace/sizes.txt) > /workspace/sizes_human.txt
