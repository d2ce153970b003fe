#!/bin/bash
# Reference solution.
printf 'import math, sys\nprint(math.factorial(int(sys.argv[1])))\n' > /workspace/fact.py
