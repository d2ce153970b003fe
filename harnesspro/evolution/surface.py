"""What the run can change on its seed, said in words: the line a run prints at its start
when the seed declares no knobs, and the sentence that stops a search whose epoch made no new
candidate (every plan discarded, or none proposed) instead of running quiet empty epochs."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

FREE_FORM_ONLY = (
    "harness {name} declares no knobs (harness.toml [[knob]], docs/harness-contract.md): "
    "the screening, the surrogate's genes and the catalog do not apply; {what}"
)


def surface_line(name: str, genes: int, improver: str, writes: bool = False) -> str:
    """The start-of-run line for a seed with no genes ('' when it has some); `writes`: the
    strategy's offline improver writes changes of its own."""
    if genes:
        return ""
    if improver == "llm":
        what = "only changes the llm improver writes are tried"
    elif writes:
        what = (
            "only the changes the rule-based improver writes are tried (set "
            "evolution.improver: llm for the model's)"
        )
    else:
        what = (
            "improver 'catalog' has nothing to change on it: set evolution.improver: llm "
            "to try written changes"
        )
    return FREE_FORM_ONLY.format(name=name, what=what)


def empty_epoch_reason(epoch: int, notes: Sequence[str]) -> str:
    """Why epoch `epoch` made no new candidate, in one sentence, from its plans' notes (what
    became of each plan; none when nothing was proposed)."""
    if not notes:
        return (
            f"epoch {epoch} proposed no change (nothing the seed declares is left to try): "
            "the search stops"
        )
    common, count = Counter(n or "no note" for n in notes).most_common(1)[0]
    share = "every one" if count == len(notes) else f"{count} of them"
    return (
        f"every plan of epoch {epoch} was discarded or repeated an earlier candidate "
        f"({len(notes)} plans; {share}: {common[:240]}): the search stops"
    )
