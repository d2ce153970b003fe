#!/bin/bash
# Reference solution.
printf 'import sys\nprint("even" if int(sys.argv[1]) %% 2 == 0 else "odd")\n' > /workspace/parity.py
