"""No step names a strategy: what a step needs to know of one travels as a property of the
strategy (evolution/strategies/) or of its entry in `PROPOSAL_COUNTS` (core/search_config)."""

from __future__ import annotations

import ast
from pathlib import Path

from harnesspro.core.search_config import PROPOSAL_COUNTS, EvolutionConfig
from harnesspro.evolution.strategies import expected_gain, nsga2

PACKAGE = Path(__file__).resolve().parents[1] / "harnesspro"
STRATEGIES = set(EvolutionConfig.model_fields["strategy"].annotation.__args__)  # type: ignore[union-attr]
# "harnesspro" is the product's own name too (folders, the git author): left out of the search.
SEARCHED = STRATEGIES - {"harnesspro"}
STEPS = ("evolution", "run", "evaluation", "improvers", "execution", "tasks")


def test_every_strategy_has_a_proposal_count_matching_its_own_constants() -> None:
    assert set(PROPOSAL_COUNTS) == STRATEGIES
    assert PROPOSAL_COUNTS["nsga2"].size == nsga2.POP_SIZE
    assert PROPOSAL_COUNTS["harnesspro"].size == expected_gain.MAX_SCREEN


def test_no_step_outside_the_strategies_names_one() -> None:
    found = []
    for layer in STEPS:
        for path in (PACKAGE / layer).rglob("*.py"):
            if "strategies" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value in SEARCHED:
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.value!r}")
    assert not found, found
