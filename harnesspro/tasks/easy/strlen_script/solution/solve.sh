#!/bin/bash
# Reference solution.
printf 'import sys\nprint(len(sys.argv[1]))\n' > /workspace/strlen.py
