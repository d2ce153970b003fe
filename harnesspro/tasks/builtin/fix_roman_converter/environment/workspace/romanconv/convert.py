"""Convert each line of stdin: digits -> Roman numeral, Roman numeral -> digits."""
import sys

from roman import RomanError, from_roman, to_roman


def convert_token(token):
    """Convert one trimmed token; return the converted text or 'ERROR'."""
    try:
        if token.isdigit():
            return to_roman(int(token))
        return str(from_roman(token))
    except RomanError:
        return "ERROR"


def main():
    for line in sys.stdin:
        token = line.strip()
        if token:
            print(convert_token(token))
    return 0


if __name__ == "__main__":
    sys.exit(main())
