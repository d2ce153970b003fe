#!/bin/bash
# Reference solution: add the missing 900/CM pair, reject non-canonical numerals, upper-case input.

python3 - <<'PY'
p = "/workspace/romanconv/roman.py"
s = open(p).read()
if '"CM"' not in s:
    s = s.replace('(1000, "M"), (500, "D")', '(1000, "M"), (900, "CM"), (500, "D")')
check = "    if not 0 < total < 4000 or to_roman(total) != s:\n        raise RomanError(f\"not a canonical roman numeral: {s!r}\")\n"
if check not in s:
    s = s.replace("    return total\n", check + "    return total\n")
open(p, "w").write(s)
PY

sed -i 's/from_roman(token)/from_roman(token.upper())/' /workspace/romanconv/convert.py
