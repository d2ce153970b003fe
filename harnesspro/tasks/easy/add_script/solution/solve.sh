#!/bin/bash
# Reference solution.
printf 'import sys\nprint(int(sys.argv[1]) + int(sys.argv[2]))\n' > /workspace/add.py
