#!/bin/bash
# Reference solution.
seq 3 3 30 > /workspace/threes.txt
