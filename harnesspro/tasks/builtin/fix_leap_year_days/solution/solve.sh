#!/bin/bash
# Reference solution: February checked is_leap(month) instead of is_leap(year), and is_leap lacked the 400-year rule.

sed -i 's/if month == 2 and is_leap(month):/if month == 2 and is_leap(year):/' /workspace/daycount/calendar_math.py

sed -i 's/return year % 4 == 0 and year % 100 != 0$/return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)/' /workspace/daycount/calendar_math.py

python3 /workspace/daycount/cli.py 1999-12-31 2024-02-29 > /workspace/result.txt
