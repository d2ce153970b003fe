"""Catalog mechanisms are recipes over declared knobs: a mechanism applies where its knobs
are declared and admit its values; the bundled seed declares what keeps today's catalog (and
so the default run's choices) unchanged; mini-swe-agent's knobs make its own search space."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import harnesspro
from harnesspro.core.knobs import Knob
from harnesspro.core.records import Plan
from harnesspro.evolution.strategies.expected_gain import screening_plans
from harnesspro.evolution.strategies.state import SearchState
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.harness.mechanisms.genes import CATALOG_GENES, gene_set, genes_of, parts_in
from harnesspro.improvers.editor.apply import catalog_edit
from harnesspro.improvers.planner.space import CATALOG_SPACE, Space, space_of
from harnesspro.run.context import seed_template

MINI = Path(harnesspro.__file__).parent / "harness" / "bundled" / "mini_swe_agent"
STEPS = Knob("max_steps", "c.yaml", "int", "step cap", "steps")


def test_every_catalog_mechanism_applies_to_the_bundled_seed() -> None:
    seed = genes_of(seed_template())
    assert seed.names == CATALOG_GENES.names == tuple(CATALOG)
    assert seed.exclusive == CATALOG_GENES.exclusive == (("high_effort", "low_effort"),)


def test_the_seed_space_screens_as_the_catalog_did() -> None:
    """The default run's first epoch on the seed: the same design as over the catalog."""

    def plans(space: Space) -> list[Plan]:
        state = SearchState(1, 0, {}, {}, None, (), 6, space=space)  # type: ignore[arg-type]
        return screening_plans(state)

    assert plans(space_of(seed_template().resolve())) == plans(CATALOG_SPACE)
    assert (space_of(seed_template().resolve()).all_genomes() == CATALOG_SPACE.all_genomes()).all()


def test_a_mechanism_applies_when_its_knobs_are_declared_with_its_values() -> None:
    step_cap = CATALOG["step_cap"]  # sets max_steps to 7
    assert step_cap.problem({}) == "knob max_steps is not declared"
    assert step_cap.problem({"max_steps": STEPS}) == ""
    narrow = Knob("max_steps", "c.yaml", "int", "step cap", "steps", values=(20, 40))
    assert step_cap.problem({"max_steps": narrow}) == "knob max_steps allows [20, 40], not 7"
    text = Knob("max_steps", "c.yaml", "str", "step cap", "steps")
    assert "is a str" in step_cap.problem({"max_steps": text})
    hooks = Knob("tool_result_hooks", "c.yaml", "int", "context management", "hooks")
    assert "not a list or set" in CATALOG["failure_hints"].problem({"tool_result_hooks": hooks})


def test_knob_values_become_genes_beside_the_recipes_that_set_them() -> None:
    knob = Knob("max_steps", "c.yaml", "int", "step cap", "steps", values=(7, 20, 40))
    genes = gene_set({"max_steps": knob}, None)
    # 7 is step_cap's own value: one gene for it, not two
    assert genes.names == ("step_cap", "max_steps=20", "max_steps=40")
    assert genes.exclusive == (("step_cap", "max_steps=20", "max_steps=40"),)


def test_a_harness_that_declares_nothing_has_no_genes_and_no_catalog_edit(tmp_path: Path) -> None:
    (tmp_path / "harness.toml").write_text('[harness]\ncommand = ["x"]\n')
    assert genes_of(tmp_path).names == ()
    plan = Plan("c000", "balanced", "step_cap", "", 0.0, 0.0)
    with pytest.raises(ValueError, match="needs knobs this harness does not declare"):
        catalog_edit(tmp_path, plan, "")


def test_mini_swe_agent_has_its_own_space() -> None:
    space = space_of(MINI.resolve())
    assert space.names == (
        "concise_prompt", "step_cap", "command_timeout", "max_steps=15", "max_steps=30",
        "cost_limit=0.02", "cost_limit=0.05", "output_format=text", "instance_template=v1",
        "instance_template=v2",
    )  # fmt: skip
    assert ("step_cap", "max_steps=15", "max_steps=30") in space.exclusive
    assert len(space.all_genomes()) == 2 * 4 * 2 * 3 * 2 * 3  # groups: none or one member


EXPECTED_MINI_CONFIG = """agent:
  step_limit: 15
  cost_limit: 0.05
  instance_template: |
    {{task}}

    Use the bash tool: each call runs in a fresh shell, so use absolute paths. Read only what the
    task needs, then act. When you are done, reply without calling a tool.
environment:
  timeout: 30
output_format: text
"""


def test_a_mini_swe_agent_genome_is_an_edit_of_its_config(tmp_path: Path) -> None:
    harness = tmp_path / "mini"
    shutil.copytree(MINI, harness)
    name = "max_steps=15+cost_limit=0.05+output_format=text+instance_template=v1"
    plan = Plan("c000", "balanced", name, "", 0.0, 0.0)
    catalog_edit(harness, plan, "")
    assert (harness / "config.yaml").read_text() == EXPECTED_MINI_CONFIG
    assert [g.validate(harness) for g in parts_in(name, harness)] == ["", "", "", ""]
    assert (harness / "run.py").read_bytes() == (MINI / "run.py").read_bytes()
