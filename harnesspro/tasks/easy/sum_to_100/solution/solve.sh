#!/bin/bash
# Reference solution.
seq 1 100 | awk '{s += $1} END {print s}' > /workspace/sum.txt
