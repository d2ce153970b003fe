#!/bin/bash
# Reference solution: sed rewrites the local part; grep/sort/uniq count domains.

sed -E 's/([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})/\1***@\2/g' /workspace/support_tickets.txt > /workspace/redacted.txt

grep -oE '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}' /workspace/support_tickets.txt | sed 's/.*@//' | tr 'A-Z' 'a-z' | LC_ALL=C sort | uniq -c | awk '{ print $2 " " $1 }' > /workspace/domains.txt
