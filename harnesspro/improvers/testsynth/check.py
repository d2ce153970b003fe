"""One check of a synthesized test: a fact of the final working directory and the value it
must have, with where that value came from and how many voters gave it."""

from __future__ import annotations

from dataclasses import asdict, dataclass

SEED, INSTRUCTION, SEARCH = "seed", "instruction", "search"
"""Where a check's value came from: the seed's rollouts agree on it, the instruction states
it, or most of the search's scored rollouts of the task agree on it (testsynth/consensus.py)."""


@dataclass(frozen=True)
class Check:
    """The fact `aspect` must have this value; `support` of `of` voters gave it (0 of 0 for
    a check the instruction states, whose sentence is `source`)."""

    aspect: str
    value: str
    kind: str = SEED
    support: int = 0
    of: int = 0
    source: str = ""

    def as_dict(self) -> dict[str, object]:
        """Its JSON form; fields at their defaults are left out, so a test frozen before they
        existed keeps its hash."""
        blank = Check("", "")
        return {
            k: v
            for k, v in asdict(self).items()
            if k in ("aspect", "value") or v != getattr(blank, k)
        }
