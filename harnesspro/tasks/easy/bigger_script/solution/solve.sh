#!/bin/bash
# Reference solution.
printf 'import sys\nprint(max(int(sys.argv[1]), int(sys.argv[2])))\n' > /workspace/bigger.py
