#!/bin/bash
# Reference solution.
awk '!seen[$0]++' /workspace/colors.txt > /workspace/unique.txt
