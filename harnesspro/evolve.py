"""`python -m harnesspro.evolve --config FILE ...` (what `ray job submit` runs) is
`harnesspro evolve --config FILE ...`. The epoch loop itself is `harnesspro.evolution.loop`."""

from __future__ import annotations

import sys

from harnesspro.cli import main


def run(argv: list[str] | None = None) -> int:
    """`harnesspro evolve` with these arguments (default: the command line's)."""
    return main(["evolve", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(run())
