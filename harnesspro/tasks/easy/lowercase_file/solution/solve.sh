#!/bin/bash
# Reference solution.
tr A-Z a-z < /workspace/shout.txt > /workspace/lower.txt
