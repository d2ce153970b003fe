#!/bin/bash
# Reference solution.
wc -l < /workspace/poem.txt > /workspace/line_count.txt
