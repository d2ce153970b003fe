"""The spend estimate printed before epoch 0: counted by hand on a small case, printed by
`--dry-run` without a key, and a start past a cap refused in one sentence unless `--yes`."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.model_config import Price
from harnesspro.run.estimate import SplitSizes, estimate, estimate_run
from harnesspro.run.spend_guard import past_cap, uncapped
from tests.conftest import tiny_config

CONFIGS = Path(__file__).parents[1] / "configs"


def small_config(strategy: str = "harnesspro-v1", **budget: float) -> RunConfig:
    return RunConfig.model_validate(
        {
            "model": {"name": "m", "upstream": "openai", "base_url": "http://x/v1"},
            "prices": {"m": {"input": 1.0, "output": 2.0}},
            "evolution": {
                "epochs": 1, "rollouts_per_task": 2, "max_survivors": 1,
                "improver": "llm", "synthesizer": "llm", "strategy": strategy,
                "improver_model": {"name": "m", "upstream": "openai", "max_edit_steps": 4},
            },
            "evaluation": {"validation_rollouts": 1, "attempts": 1},
            "gateway": {"rollout_budget": {"max_calls": 2}},
            "budget": budget,
        }
    )  # fmt: skip


def test_the_estimate_matches_a_hand_count() -> None:
    config = small_config()
    price = Price(input=1.0, output=2.0)
    est = estimate(config, SplitSizes(coreset=3, validation=4, test=2), price, price)
    # coreset: seed 3 tasks x G 2, then 1 epoch x 1 parent x 3 plans x 3 x 2 = 6 + 18
    # validation: 4 tasks x G 2 for the seed (its rollouts write the frozen tests:
    # evaluation/validation.py) + 4 tasks x 1 for the epoch's one new pick = 12
    assert (est.search_rollouts, est.heldout_rollouts) == (24 + 12, 2 * 1 * 5)
    # a rollout of 2 calls (its cap): input 1500 + 1900, output 2 x 300, at $1/$2 per M
    per_rollout = (3400 * 1.0 + 600 * 2.0) / 1e6
    assert est.target_dollars == pytest.approx(36 * per_rollout)
    assert est.target_dollars_max == pytest.approx(36 * per_rollout)
    assert est.heldout_dollars == pytest.approx(10 * per_rollout)  # its own account
    # expected calls: analyzer 1, planner 1, editor 3 plans x 4 steps (max_edit_steps caps
    # the typical 6), synthesizer 3 + 4 tasks
    assert est.improver_calls == 1 + 1 + 12 + 7
    by_hand = (12_000 + 3_000) + (16_000 + 5_000) + 12 * (6_000 + 1_600) + 7 * (10_000 + 2_000)
    assert est.improver_dollars == pytest.approx(by_hand / 1e6)
    assert past_cap(est, config) == ""
    capped = small_config(max_target_dollars=0.1)
    assert "budget.max_target_dollars" in past_cap(est, capped)
    held = small_config(max_heldout_dollars=0.01)
    assert "budget.max_heldout_dollars" in past_cap(est, held)


def test_the_default_strategy_plans_after_its_screening_and_edits_its_picks() -> None:
    base = small_config("harnesspro")
    evolution = base.evolution.model_copy(update={"epochs": 3, "max_survivors": 3})
    sizes = SplitSizes(coreset=3, validation=4, test=2)
    for cap, picks in ((None, 9), (500, 3)):
        evaluation = base.evaluation.model_copy(update={"max_rollouts": cap})
        config = base.model_copy(update={"evolution": evolution, "evaluation": evaluation})
        est = estimate(config, sizes, None, None)
        # epoch 1 screens without the planner, the analyzer diagnosing the seed; epochs 2
        # and 3 analyze and plan for 3 parents each: analyzer 1 + 6, planner 6; edited: at
        # most min(6 parents x 3 plans, 2 epochs x `picks`), 4 steps each; synthesizer 3 + 4
        edits = min(18, 2 * picks)
        assert est.improver_calls == 7 + 6 + edits * 4 + 7, cap
    # the previous default screens without the analyzer: 6 + 6, 2 epochs x 9 edits uncapped
    catalog = base.model_copy(
        update={"evolution": evolution.model_copy(update={"strategy": "harnesspro-catalog"})}
    )
    assert estimate(catalog, sizes, None, None).improver_calls == 6 + 6 + 18 * 4 + 7
    # a seed that declares no knobs has no screening: epoch 1 plans for it too
    custom = base.model_copy(update={"evolution": evolution})
    own = custom.harness.model_copy(update={"seed": Path(__file__).parent / "no-such-seed"})
    est = estimate(custom.model_copy(update={"harness": own}), sizes, None, None)
    assert est.improver_calls == 7 + 7 + min(21, 3 * 9) * 4 + 7


def test_epoch_one_improves_the_seed_alone() -> None:
    config = small_config().model_copy(
        update={
            "evolution": small_config().evolution.model_copy(
                update={"epochs": 2, "max_survivors": 3}
            )
        }
    )
    est = estimate(config, SplitSizes(coreset=3, validation=0, test=0), None, None)
    # parents: the seed in epoch 1, then 3 survivors in epoch 2 = 4, each with 3 plans
    assert est.search_rollouts == 3 * 2 * (1 + 4 * 3)
    assert est.target_dollars is None and est.improver_dollars is None  # unpriced: unknown


def test_an_llm_role_without_an_improver_model_uses_the_real_target() -> None:
    config = RunConfig.model_validate(
        {
            "model": {"name": "gpt-4o-mini", "upstream": "openai", "api_key_env": "K"},
            "evolution": {"improver": "llm"},
        }
    )
    improver = config.evolution.improver_model
    chosen = (improver.name, improver.upstream, improver.api_key_env)
    assert chosen == ("gpt-4o-mini", "openai", "K")


def test_openai_config_prints_its_estimate_without_a_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = CONFIGS / "openai.yaml"
    config = load_config(path)
    assert (config.evolution.improver, config.evolution.synthesizer) == ("llm", "llm")
    assert config.evolution.improver_model.upstream == "openai"
    assert config.budget.max_target_dollars and config.budget.max_improver_dollars
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(path), "--run-dir", str(run_dir), "--dry-run"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "estimated spend for the whole run" in out and "dry run:" in out
    held = next(line for line in out.splitlines() if line.strip().startswith("held-out:"))
    assert "150 rollouts, ~$" in held  # 10 test tasks x K 3 x 5
    assert "past its cap" not in out and not run_dir.exists()


@pytest.mark.parametrize("name", ["openai.yaml", "local.yaml"])
def test_real_model_configs_fit_their_caps(name: str) -> None:
    config = load_config(CONFIGS / name)
    assert config.evolution.improver == "llm" and config.evolution.synthesizer == "llm"
    assert config.model.upstream == config.evolution.improver_model.upstream == "openai"
    est = estimate_run(config)
    assert est.search_rollouts > 0 and est.improver_calls > 0
    assert est.target_dollars and est.improver_dollars  # both priced, so both caps act
    assert past_cap(est, config) == ""


def test_a_start_past_a_cap_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tiny_config(tmp_path, budget={"max_target_dollars": 0.001})
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.count(". ") == 0, err
    assert "budget.max_target_dollars" in err and "--yes" in err
    assert not run_dir.exists()


def test_the_confirmation_adds_the_seed_and_each_point_once() -> None:
    base = small_config()
    config = base.model_copy(
        update={"evolution": base.evolution.model_copy(update={"confirm_attempts": 2})}
    )
    sizes = SplitSizes(coreset=3, validation=4, test=2)
    added = estimate(config, sizes, None, None).search_rollouts
    # the seed and max_survivors (1) points, 2 more attempts on each of 3 coreset tasks
    assert added - estimate(base, sizes, None, None).search_rollouts == (1 + 1) * 3 * 2


@pytest.mark.parametrize(
    ("unset", "missing"),
    [
        (["budget.max_target_dollars"], ["budget.max_target_dollars"]),
        (["budget.max_improver_dollars"], ["budget.max_improver_dollars"]),
        (["budget.max_target_dollars", "budget.max_improver_dollars"], ["both"]),
        ([], []),
    ],
)
def test_a_paid_run_without_its_caps_is_refused_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], unset: list[str], missing: list[str]
) -> None:
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(CONFIGS / "openai.yaml"), "--run-dir", str(run_dir)]
    sets = [f"{key}=null" for key in unset]
    config = load_config(CONFIGS / "openai.yaml", sets)
    sentence = uncapped(estimate_run(config), config)
    if not missing:
        assert sentence == ""
        return
    assert main([*argv, *(a for s in sets for a in ("--set", s))]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.count(". ") == 0, err
    assert err.endswith(sentence) and "--yes" in err and not run_dir.exists()
    for key in unset:
        assert key in err
    assert "estimated target ~$" in err and "improver ~$" in err


def test_only_a_paid_upstream_needs_caps(tmp_path: Path) -> None:
    scripted = load_config(tiny_config(tmp_path))
    assert scripted.budget.max_target_dollars is None
    assert uncapped(estimate_run(scripted), scripted) == ""
    # an llm improver on the scripted upstream costs nothing either
    paid_target = small_config("harnesspro-v1", max_target_dollars=1.0, max_improver_dollars=1.0)
    local = paid_target.evolution.improver_model.model_copy(update={"upstream": "scripted"})
    free_improver = paid_target.model_copy(
        update={
            "evolution": paid_target.evolution.model_copy(update={"improver_model": local}),
            "budget": paid_target.budget.model_copy(update={"max_improver_dollars": None}),
        }
    )
    sizes = SplitSizes(coreset=3, validation=4, test=2)
    assert uncapped(estimate(free_improver, sizes, None, None), free_improver) == ""
