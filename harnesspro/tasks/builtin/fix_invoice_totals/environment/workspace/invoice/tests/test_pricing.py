import os
import sys
import unittest
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from pricing import invoice_totals, line_total  # noqa: E402


class PricingTest(unittest.TestCase):
    def test_line_total_with_discount(self):
        self.assertEqual(line_total("3", "9.99", "10"), Decimal("26.97"))

    def test_line_total_rounds_half_up(self):
        self.assertEqual(line_total("1", "0.125"), Decimal("0.13"))

    def test_single_line_invoice(self):
        self.assertEqual(invoice_totals([("2", "5.00", "0")], "19"),
                         (Decimal("10.00"), Decimal("1.90"), Decimal("11.90")))

    def test_two_line_invoice(self):
        lines = [("1", "100.00", "0"), ("4", "2.50", "50")]
        self.assertEqual(invoice_totals(lines, "7"),
                         (Decimal("105.00"), Decimal("7.35"), Decimal("112.35")))


if __name__ == "__main__":
    unittest.main()
