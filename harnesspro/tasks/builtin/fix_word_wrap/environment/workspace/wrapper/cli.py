"""Usage: python3 cli.py WIDTH < text -- re-wrap the paragraphs of stdin to WIDTH columns."""

import sys

from fill import fill


def paragraphs(text):
    """The paragraphs of `text` as lists of words."""
    return [block.split() for block in text.split("\n\n")]


def main(argv):
    if len(argv) != 2 or not argv[1].isdigit() or int(argv[1]) < 1:
        print("usage: cli.py WIDTH", file=sys.stderr)
        return 2
    width = int(argv[1])
    blocks = ["\n".join(fill(words, width)) for words in paragraphs(sys.stdin.read())]
    if blocks:
        sys.stdout.write("\n\n".join(blocks) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
