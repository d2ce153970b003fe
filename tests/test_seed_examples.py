"""The seed's harness.yaml shows hook examples in its comments; an editor (human or model)
copies them, so each must call its hook with parameters the hook takes."""

from __future__ import annotations

import inspect
import re

from harnesspro.harness.seed.agent import hooks
from harnesspro.run.context import seed_template

# The arguments the agent loop passes itself, before a hook's own parameters.
LOOP_ARGUMENTS = {"agent", "text", "content"}


def test_every_hook_example_in_the_seed_names_real_parameters() -> None:
    text = (seed_template() / "harness.yaml").read_text()
    examples = re.findall(r"\{use: (\w+)((?:, \w+: [^,}]+)*)\}", text)
    assert (
        len(examples) >= 5
    )  # near_budget_warning, compress, notice, block, empty_submission_guard
    for name, params in examples:
        given = set(re.findall(r", (\w+):", params))
        accepted = set(inspect.signature(getattr(hooks, name)).parameters) - LOOP_ARGUMENTS
        assert given <= accepted, f"{name}: {sorted(given - accepted)} not in {sorted(accepted)}"
        required = {
            p.name
            for p in inspect.signature(getattr(hooks, name)).parameters.values()
            if p.default is inspect.Parameter.empty and p.name not in LOOP_ARGUMENTS
        }
        assert required <= given, f"{name}: the example leaves out {sorted(required - given)}"
