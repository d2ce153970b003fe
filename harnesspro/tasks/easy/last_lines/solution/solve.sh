#!/bin/bash
# Reference solution.
tail -n 3 /workspace/poem.txt > /workspace/tail.txt
