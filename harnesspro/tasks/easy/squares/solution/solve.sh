#!/bin/bash
# Reference solution.
for i in $(seq 1 10); do echo $((i * i)); done > /workspace/squares.txt
