#!/bin/bash
# Reference solution: sort by room and start (HH:MM sorts as text), then a single awk sweep merges.

tail -n +2 /workspace/bookings.csv | LC_ALL=C sort -t, -k1,1 -k2,2 > /workspace/bookings_sorted.csv

awk -F, 'function flush() { if (room != "") print room " " s "-" e } $1 != room { flush(); room = $1; s = $2; e = $3; next } $2 <= e { if ($3 > e) e = $3; next } { flush(); s = $2; e = $3 } END { flush() }' /workspace/bookings_sorted.csv > /workspace/busy.txt
