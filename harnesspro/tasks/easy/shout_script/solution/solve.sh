#!/bin/bash
# Reference solution.
printf 'import sys\nprint(sys.argv[1].upper())\n' > /workspace/shout.py
