#!/bin/bash
# Reference solution.
tr a-z A-Z < /workspace/words.txt > /workspace/upper.txt
