"""Conversion between integers and canonical Roman numerals (range 1..3999)."""


class RomanError(ValueError):
    """Raised for numbers out of range and strings that are not canonical numerals."""


_TABLE = [
    (1000, "M"), (500, "D"), (400, "CD"), (100, "C"),
    (90, "XC"), (50, "L"), (40, "XL"), (10, "X"),
    (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
]
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(n):
    """Return the canonical Roman numeral for 1 <= n <= 3999."""
    if not 0 < n < 4000:
        raise RomanError(f"out of range: {n}")
    out = []
    for value, symbol in _TABLE:
        while n >= value:
            out.append(symbol)
            n -= value
    return "".join(out)


def from_roman(s):
    """Return the value of an upper-case canonical Roman numeral."""
    if not s or any(ch not in _VALUES for ch in s):
        raise RomanError(f"not a roman numeral: {s!r}")
    total = 0
    for i, ch in enumerate(s):
        value = _VALUES[ch]
        if i + 1 < len(s) and _VALUES[s[i + 1]] > value:
            total -= value
        else:
            total += value
    return total
