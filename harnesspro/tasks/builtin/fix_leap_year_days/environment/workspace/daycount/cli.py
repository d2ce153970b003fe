"""Usage: python3 cli.py DATE1 DATE2 -- days from DATE1 to DATE2 and the weekday of DATE2."""

import re
import sys

from calendar_math import days_in_month, to_ordinal, weekday_name


def parse_date(text):
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", text)
    if not match:
        raise ValueError(text)
    year, month, day = (int(g) for g in match.groups())
    if year < 1 or not 1 <= month <= 12 or not 1 <= day <= days_in_month(year, month):
        raise ValueError(text)
    return year, month, day


def main(argv):
    if len(argv) != 3:
        print("usage: cli.py DATE1 DATE2", file=sys.stderr)
        return 2
    dates = []
    for arg in argv[1:]:
        try:
            dates.append(parse_date(arg))
        except ValueError:
            print("error: invalid date %s" % arg, file=sys.stderr)
            return 2
    start, end = dates
    print("days: %d" % (to_ordinal(*end) - to_ordinal(*start)))
    print("weekday: %s" % weekday_name(*end))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
