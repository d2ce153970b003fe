"""Print the totals of an invoice CSV: python3 cli.py FILE [TAX_PCT]."""
import csv
import sys

from pricing import invoice_totals

DEFAULT_TAX_PCT = "19"


def read_lines(path):
    with open(path, newline="") as f:
        return [(row["qty"], row["unit_price"], row.get("discount_pct") or "0")
                for row in csv.DictReader(f)]


def main(argv):
    lines = read_lines(argv[1])
    tax_pct = argv[2] if len(argv) > 2 else DEFAULT_TAX_PCT
    subtotal, tax, total = invoice_totals(lines, tax_pct)
    print(f"subtotal: {subtotal}")
    print(f"tax: {tax}")
    print(f"total: {total}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
