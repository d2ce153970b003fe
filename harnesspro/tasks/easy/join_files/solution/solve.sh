#!/bin/bash
# Reference solution.
cat /workspace/part1.txt /workspace/part2.txt > /workspace/joined.txt
