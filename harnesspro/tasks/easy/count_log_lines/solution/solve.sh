#!/bin/bash
# Reference solution.
cat /workspace/logs/*.log | wc -l > /workspace/log_lines.txt
