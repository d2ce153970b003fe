#!/bin/bash
# Reference solution: keep paid rows, then aggregate per region with awk and sort by revenue.

awk -F, 'NR > 1 && $6 == "paid"' /workspace/sales.csv > /workspace/paid_rows.csv

awk -F, '{ n[$2]++; rev[$2] += $4 * $5 } END { for (r in n) printf "%s,%d,%.2f\n", r, n[r], rev[r] }' /workspace/paid_rows.csv | sort -t, -k3,3nr > /workspace/region_rows.csv

{ echo "region,orders,revenue"; cat /workspace/region_rows.csv; } > /workspace/region_totals.csv
