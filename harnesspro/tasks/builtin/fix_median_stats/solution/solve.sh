#!/bin/bash
# Reference solution: the even-length median used the elements after the middle instead of the two middle ones.

sed -i 's/return (ordered\[mid\] + ordered\[mid + 1\]) \/ 2/return (ordered[mid - 1] + ordered[mid]) \/ 2/' /workspace/numstats/stats.py

python3 /workspace/numstats/cli.py /workspace/numstats/sample.txt > /workspace/sample_stats.txt
