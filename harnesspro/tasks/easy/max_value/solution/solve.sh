#!/bin/bash
# Reference solution.
sort -n /workspace/values.txt | tail -1 > /workspace/max.txt
