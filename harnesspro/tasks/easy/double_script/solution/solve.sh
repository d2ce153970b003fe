#!/bin/bash
# Reference solution.
printf 'import sys\nprint(2 * int(sys.argv[1]))\n' > /workspace/double.py
