#!/bin/bash
# Reference solution.
for i in $(seq 0 10); do echo $((2 ** i)); done > /workspace/powers.txt
