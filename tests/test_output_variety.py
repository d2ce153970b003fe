"""Output variety the official tests accept: under several profiles the reference-following
rollout writes differently formatted outputs and still passes every official test."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE, BehaviourProfile
from harnesspro.execution.fakes.sampling import sample_profile
from harnesspro.execution.fakes.scripted import plan_actions
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.fakes.traits import Traits
from harnesspro.execution.fakes.variants import KINDS, accepted, chosen
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.layout import Layout
from harnesspro.tasks.loader import load_suite
from harnesspro.tasks.runtime import grade, run_steps

VARIED = [t for t in load_suite("builtin") if t.id in accepted()]
EVERY_KIND = (1 << len(KINDS)) - 1
# The reference's own style, every accepted kind at once, and a drawn mix of them.
PROFILES = [DEFAULT_PROFILE, DEFAULT_PROFILE.model_copy(update={"variant": EVERY_KIND})]
PROFILES += [sample_profile(2)]
PLAIN = Traits(concise=False, verify=False, direct=False, effort="medium")


def follow_reference(task: Task, profile: BehaviourProfile, tmp: Path) -> Layout:
    """The task's layout after the steps of a rollout that never slips under `profile` (its
    read-only looks left out), run as one script like solve.sh."""
    clean = profile.model_copy(update={"p_slip": 0.0})
    actions = plan_actions(script_for(task), PLAIN, "variety", clean)
    script = "\n\n".join(a.command for a in actions if a.kind == "step")
    return run_steps(task, [script], tmp / "task", Bubblewrap())


def test_several_kinds_are_accepted_somewhere() -> None:
    assert len({kind for pairs in accepted().values() for _, kind in pairs}) >= 3
    assert any(chosen(pairs, sample_profile(1).variant) for pairs in accepted().values())


@pytest.mark.slow
@pytest.mark.parametrize("task", VARIED, ids=[t.id for t in VARIED])
def test_every_profiles_outputs_pass_the_official_tests(task: Task) -> None:
    outputs: dict[int, dict[str, bytes]] = {}
    for profile in PROFILES:
        with tempfile.TemporaryDirectory() as tmp:
            layout = follow_reference(task, profile, Path(tmp))
            assert grade(task, layout, Bubblewrap()).passed, profile.name
            work = layout.host(task.workdir)
            files = sorted(p for p in work.rglob("*") if p.is_file() and ".git" not in p.parts)
            outputs[profile.variant] = {str(p.relative_to(work)): p.read_bytes() for p in files}
    assert outputs[EVERY_KIND] != outputs[0]  # the variety is real, not a no-op
