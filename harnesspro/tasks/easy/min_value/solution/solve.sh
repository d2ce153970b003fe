#!/bin/bash
# Reference solution.
sort -n /workspace/values.txt | head -n 1 > /workspace/min.txt
