import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from convert import convert_token  # noqa: E402
from roman import RomanError, from_roman, to_roman  # noqa: E402


class RomanTest(unittest.TestCase):
    def test_to_roman(self):
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(3999), "MMMCMXCIX")
        self.assertEqual(to_roman(48), "XLVIII")

    def test_from_roman(self):
        self.assertEqual(from_roman("MCMXCIV"), 1994)
        self.assertEqual(from_roman("CDXLIV"), 444)

    def test_rejects_non_canonical(self):
        for bad in ["IIII", "VX", "IC", "MMMM", "VV", "XIIX"]:
            with self.assertRaises(RomanError, msg=bad):
                from_roman(bad)

    def test_convert_token(self):
        self.assertEqual(convert_token("0"), "ERROR")
        self.assertEqual(convert_token("2024"), "MMXXIV")
        self.assertEqual(convert_token("mcmlxxxiv"), "1984")


if __name__ == "__main__":
    unittest.main()
