#!/bin/bash
# Reference solution: keep the shells of regular accounts (empty means /bin/sh), then count and rank them.

awk -F: '$3 >= 1000 && $3 != 65534 { print ($7 == "" ? "/bin/sh" : $7) }' /workspace/passwd > /workspace/user_shells.txt

LC_ALL=C sort /workspace/user_shells.txt | uniq -c | awk '{ print $1 " " $2 }' | LC_ALL=C sort -k1,1nr -k2,2 > /workspace/shells.txt
