#!/bin/bash
# Reference solution: grep the markers with file and line, reshape with sed, sort with explicit keys.

cd /workspace/src && grep -rnE --include='*.py' --include='*.js' --include='*.sh' 'TODO\([a-z]+\):' . | sed -E 's/^\.\/([^:]*):([0-9]+):.*TODO\(([a-z]+)\):[[:space:]]*/\3\t\1\t\2\t/; s/[[:space:]]+$//' | LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3n | awk -F'\t' -v OFS='\t' '{ print $1, $2 ":" $3, $4 }' > /workspace/todos.tsv

cut -f1 /workspace/todos.tsv | LC_ALL=C sort | uniq -c | awk '{ print $2 " " $1 }' > /workspace/todo_counts.txt
