#!/bin/bash
# Reference solution.
awk '{s+=$1} END{print s}' /workspace/numbers.txt > /workspace/total.txt
