#!/bin/bash
# Reference solution.
printf 'import sys\nprint(sys.argv[1][::-1])\n' > /workspace/rev.py
