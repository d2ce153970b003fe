#!/bin/bash
# Reference solution: awk parses sections/settings (last value wins), then sort in byte order.

cat > /workspace/flatten.awk <<'AWK'
{
    line = $0
    gsub(/^[ \t]+|[ \t\r]+$/, "", line)
}
line == "" || line ~ /^[;#]/ { next }
line ~ /^\[.*\]$/ {
    sec = substr(line, 2, length(line) - 2)
    gsub(/^[ \t]+|[ \t]+$/, "", sec)
    sec = tolower(sec)
    next
}
{
    i = index(line, "=")
    key = substr(line, 1, i - 1)
    val = substr(line, i + 1)
    gsub(/^[ \t]+|[ \t]+$/, "", key)
    gsub(/^[ \t]+|[ \t]+$/, "", val)
    s = (sec == "") ? "global" : sec
    settings[s "." tolower(key)] = val
}
END { for (k in settings) print k "=" settings[k] }
AWK

awk -f /workspace/flatten.awk /workspace/app.ini | LC_ALL=C sort > /workspace/flat.txt
