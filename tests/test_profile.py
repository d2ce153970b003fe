"""Behaviour profiles: the config key, the distribution and the misleading flag."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from harnesspro.core.config import load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.execution.fakes.behaviour import (
    DEFAULT_PROFILE,
    BehaviourProfile,
    ProfileError,
    load_profile,
)
from harnesspro.execution.fakes.sampling import DRAWS, resolve_profile, sample_profile


def test_the_same_seed_draws_the_same_profile_and_others_differ() -> None:
    assert sample_profile(3) == sample_profile(3)
    assert len({sample_profile(s).digest() for s in range(20)}) == 20


def test_every_lever_can_help_hurt_or_do_nothing() -> None:
    seen = Counter((lever, sample_profile(s).modes[lever]) for s in range(300) for lever in DRAWS)
    for lever in DRAWS:
        for mode in ("help", "none", "hurt"):
            assert seen[lever, mode] > 0, (lever, mode)


def test_a_hurt_mode_moves_its_parameters_the_harmful_way() -> None:
    for seed in range(200):
        p = sample_profile(seed)
        if p.modes["concision"] == "hurt":
            assert p.concise_slip > 1.0
        if p.modes["verification"] == "hurt":
            assert p.verify_notice < p.p_notice and p.verify_catch < 0.5
        if p.modes["exploration"] == "help":
            assert p.direct_slip < 1.0 and p.direct_explore[1] <= p.explore[1]
        if p.modes["notices"] == "hurt":
            assert p.notice_rush > 0
        if "hurt" in (p.modes["compression"], p.modes["skimming"]):
            assert p.needs_full_view and p.hidden_slip > 1.0


def test_misleading_is_flagged_when_no_catalog_fix_helps_and_one_hurts() -> None:
    helps = dict.fromkeys(DRAWS, "help")
    assert not BehaviourProfile(modes=helps).misleading
    # Verbose replies: concision hurts and effort does nothing -> misleads.
    odd = BehaviourProfile(modes={**helps, "concision": "hurt", "effort": "none"})
    assert odd.misleads == ("verbose_replies",) and odd.misleading
    # Only one of two fixes hurts, the other helps -> the symptom still points to a good fix.
    assert not BehaviourProfile(modes={**helps, "concision": "hurt"}).misleading
    rate = sum(sample_profile(s).misleading for s in range(400)) / 400
    assert 0.2 < rate < 0.8  # both kinds occur often enough to report apart


def test_config_key_resolves_to_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "run.yaml"
    path.write_text("model: {upstream: scripted, behaviour: {seed: 5}}\n")
    b = load_config(path).model.behaviour
    assert resolve_profile(b.seed, b.profile) == sample_profile(5)
    path.write_text("model: {upstream: scripted}\n")
    b = load_config(path).model.behaviour
    assert resolve_profile(b.seed, b.profile) == DEFAULT_PROFILE


@pytest.mark.parametrize(
    "model",
    [
        "{upstream: openai, base_url: 'http://x', behaviour: {seed: 1}}",
        "{behaviour: {seed: 1, profile: p.yaml}}",
        "{behaviour: {colour: red}}",
    ],
)
def test_bad_behaviour_settings_are_one_sentence_errors(tmp_path: Path, model: str) -> None:
    path = tmp_path / "run.yaml"
    path.write_text(f"model: {model}\n")
    with pytest.raises(ConfigError, match="run.yaml: (unknown )?key 'model"):
        load_config(path)


def test_profile_files_are_read_and_checked(tmp_path: Path) -> None:
    good = tmp_path / "p.yaml"
    good.write_text("name: mine\np_slip: 0.5\nmisleading: true\n")  # derived keys are ignored
    assert load_profile(good).p_slip == 0.5 and load_profile(good).name == "mine"
    bad = tmp_path / "bad.yaml"
    bad.write_text("p_slip: 2\n")
    with pytest.raises(ProfileError, match="bad.yaml: field 'p_slip'"):
        load_profile(bad)
    with pytest.raises(ProfileError, match="no such profile file"):
        load_profile(tmp_path / "missing.yaml")
