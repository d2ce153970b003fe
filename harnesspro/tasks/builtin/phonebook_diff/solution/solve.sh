#!/bin/bash
# Reference solution: strip comments, sort both files by id in byte order, then join them.

grep -vE '^(#|$)' /workspace/old.txt | LC_ALL=C sort -t: -k1,1 > /tmp/old.sorted && grep -vE '^(#|$)' /workspace/new.txt | LC_ALL=C sort -t: -k1,1 > /tmp/new.sorted && LC_ALL=C join -t: -a1 -a2 -e NONE -o 0,1.2,2.2 /tmp/old.sorted /tmp/new.sorted > /workspace/joined.txt

awk -F: '$2 == "NONE" { print "+ " $1 " " $3; next } $3 == "NONE" { print "- " $1 " " $2; next } $2 != $3 { print "~ " $1 " " $2 " " $3 }' /workspace/joined.txt > /workspace/changes.txt

awk -F: '$2 == "NONE" { a++; next } $3 == "NONE" { r++; next } $2 != $3 { c++; next } { u++ } END { printf "added %d\nremoved %d\nchanged %d\nunchanged %d\n", a, r, c, u }' /workspace/joined.txt > /workspace/summary.txt
