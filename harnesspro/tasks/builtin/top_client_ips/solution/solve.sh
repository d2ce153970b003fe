#!/bin/bash
# Reference solution: extract IPs of failed requests, then count and rank them.

awk '$9 >= 400 { print $1 }' /workspace/access.log > /workspace/failed_ips.txt

LC_ALL=C sort /workspace/failed_ips.txt | uniq -c | awk '{ print $1 " " $2 }' | LC_ALL=C sort -k1,1nr -k2,2 | head -n 5 > /workspace/top_ips.txt
