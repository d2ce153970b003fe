"""A genome of the search space (catalog mechanisms, several on one lever) is gated by each
mechanism's own check, as a bundle is: accepted without the smoke tasks' signatures when every
mechanism is in place; one whose mechanisms override one another (high_effort+low_effort, as
NSGA-II draws them) is judged as before, by the smoke tasks."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.core.records import Candidate, Plan
from harnesspro.evolution.strategies.nsga2 import apply_genome
from harnesspro.harness.mechanisms.catalog import CATALOG, catalog_parts, members
from harnesspro.harness.repo import HarnessRepo
from harnesspro.improvers.editor import apply
from harnesspro.run.context import SEED_ID, seed_template

GENOME = "budget_notices+tight_budget_notices+step_cap"  # three mechanisms on one lever


def test_a_genome_resolves_to_its_parts_and_a_bundle_only_across_levers() -> None:
    assert {CATALOG[n].lever for n in GENOME.split("+")} == {"step cap"}
    assert [m.name for m in catalog_parts(GENOME)] == GENOME.split("+")
    assert members(GENOME) == ()  # not a bundle: its parts share a lever
    assert catalog_parts("concise_prompt+no_such_mechanism") == ()


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[HarnessRepo, Candidate]:
    repo = HarnessRepo(tmp_path / "repo", tmp_path / "worktrees")
    commit, tree = repo.commit_seed(seed_template())
    return repo, Candidate(SEED_ID, commit, tree, None, None, None, 0)


class Consulted(Exception):
    """The smoke tasks' signatures were asked for."""


def smoke_signatures(*args: object, **kwargs: object) -> None:
    raise Consulted


def test_a_genome_is_accepted_on_its_mechanisms_checks(
    seeded: tuple[HarnessRepo, Candidate], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, seed = seeded
    monkeypatch.setattr(apply, "signatures", smoke_signatures)
    plan = Plan(SEED_ID, "balanced", GENOME, "a genome", 0.0, 0.0)
    edit = apply.apply_plan(plan, seed, repo, [seed], "c001", 1, apply_genome, "bubblewrap")
    assert edit.new and edit.candidate is not None and edit.candidate.mechanism == GENOME


def test_a_genome_whose_mechanisms_override_one_another_goes_to_the_smoke_tasks(
    seeded: tuple[HarnessRepo, Candidate], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, seed = seeded
    monkeypatch.setattr(apply, "signatures", smoke_signatures)
    plan = Plan(SEED_ID, "balanced", "compress_output+high_effort+low_effort", "", 0.0, 0.0)
    with pytest.raises(Consulted):
        apply.apply_plan(plan, seed, repo, [seed], "c001", 1, apply_genome, "bubblewrap")


def test_a_bundle_with_a_mechanism_missing_is_discarded_naming_it(
    seeded: tuple[HarnessRepo, Candidate], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, seed = seeded
    monkeypatch.setattr(apply, "signatures", smoke_signatures)

    def all_but_the_last(worktree: Path, plan: Plan, feedback: str) -> str:
        for name in plan.mechanism.split("+")[:-1]:
            CATALOG[name].apply(worktree)
        return "left one out"

    plan = Plan(SEED_ID, "balanced", "concise_prompt+skim_inputs", "a bundle", 0.0, 0.0)
    edit = apply.apply_plan(plan, seed, repo, [seed], "c001", 1, all_but_the_last, "bubblewrap")
    assert edit.candidate is None
    assert "skim_inputs is not in effect after editing" in edit.note
