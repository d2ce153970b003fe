"""Usage: python3 cli.py FILE -- print summary statistics of the numbers in FILE (one per line)."""

import sys

from stats import summary


def read_numbers(path):
    numbers = []
    with open(path) as handle:
        for line in handle:
            line = line.strip()
            if line:
                numbers.append(float(line))
    return numbers


def main(argv):
    if len(argv) != 2:
        print("usage: cli.py FILE", file=sys.stderr)
        return 2
    numbers = read_numbers(argv[1])
    if not numbers:
        print("count: 0")
        return 0
    result = summary(numbers)
    print("count: %d" % result["count"])
    for key in ("mean", "median", "min", "max"):
        print("%s: %.2f" % (key, result[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
