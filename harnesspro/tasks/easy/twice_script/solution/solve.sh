#!/bin/bash
# Reference solution.
printf 'import sys\nprint(sys.argv[1])\nprint(sys.argv[1])\n' > /workspace/twice.py
