#!/bin/bash
# Reference solution.
seq 10 -1 1 > /workspace/countdown.txt
