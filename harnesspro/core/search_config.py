"""How the search runs: the task suite and coreset, the epochs and their strategy, the
operating points' selection and the experience library."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import (
    Field,
    model_validator,
)

from harnesspro.core.config_base import (
    MAX_REPEATS,
    Strict,
)
from harnesspro.core.model_config import ImproverConfig

PACKAGED_SUITES = ("builtin", "easy")
"""Suites shipped as package data, named instead of given as folders: `builtin` (the tasks
the scripted world knows) and `easy` (short tasks a small real model can move on)."""


class TasksConfig(Strict):
    suite: str | list[str] = "builtin"
    """`builtin`, `easy`, a folder of task folders (Harbor or Terminal-Bench layout; a
    Terminal-Bench checkout with its tasks under `tasks/` too), or a list of such folders.
    Relative paths resolve against the config file's folder."""
    test_fraction: float = Field(0.25, ge=0.0, lt=1.0)
    """Share of the suite held out as the test split."""
    split_seed: int = 0
    """Seed of the hash-based split."""
    manifest: Path | None = None
    """A split manifest (coresets/*.json): the run uses its splits and refuses to start if a
    listed task changed since it was written. A relative path resolves against the config
    file's folder."""
    include: list[str] | None = None
    """Only these task ids of the suite (None = all): the splits are drawn from them. An id
    the suite does not have is an error; with `tasks.manifest` the manifest fixes the tasks,
    so setting both is an error."""


DEFAULT_CORESET_SIZE = 8


class CoresetConfig(Strict):
    size: int | None = Field(None, ge=1)
    """Number of training tasks the DPP picks from the train pool (None = 8). With
    `tasks.manifest` the manifest's coreset fixes it: a different size is an error."""
    refresh: Literal["none", "failures"] = "none"
    """`failures`: after each epoch trade coreset tasks every survivor solves for validation
    tasks none solves, chosen by the DPP (harnesspro/evolution/refresh.py)."""


DEFAULT_BUNDLE = 2
"""Mechanisms per catalog plan when `evolution.bundle` is unset: the best of 1, 2, 3 and 5 in
the README's benchmark (section "Benchmark")."""


BUNDLED = ("harnesspro-v1", "no-synth", "no-planner")
"""The strategies whose plans `evolution.bundle` sizes."""


LOOP_FAMILY = (
    "harnesspro",
    "harnesspro-no-analyzer",
    "harnesspro-flat-prior",
    "harnesspro-no-screen",
    "harnesspro-raw",
)
GAIN_CHOSEN = (*LOOP_FAMILY, "harnesspro-catalog")
"""The strategies whose surrogate chooses which plans are edited (after a screening epoch
but for `harnesspro-no-screen`)."""


ANALYZED_EVERY_EPOCH = LOOP_FAMILY
"""The improvement loop and its ablations: the analyzer runs in the screening epoch too."""


@dataclass(frozen=True)
class ProposalCount:
    """At most how many candidates a strategy proposes an epoch, as the spend estimate
    counts them (harnesspro/run/estimate.py), so no module outside the strategies and this
    one names a strategy to count it."""

    rule: Literal["gain", "population", "per_parent"]
    """gain: a screening design in epoch 1, then the surrogate's picks; population: a
    population bred each epoch (the seed is one of the first); per_parent: `size` plans for
    each parent."""
    size: int
    """gain: the screening's rows and the picks without a rollout cap; population: its size;
    per_parent: plans a parent."""


PROPOSAL_COUNTS: dict[str, ProposalCount] = {
    **{name: ProposalCount("gain", 9) for name in GAIN_CHOSEN},
    "nsga2": ProposalCount("population", 9),
    "balance": ProposalCount("per_parent", 1),
    **{
        name: ProposalCount("per_parent", 3)
        for name in ("harnesspro-v1", "random", "rho", "no-planner", "no-synth")
    },
}
"""Every strategy's count (strategies/expected_gain.py's screening and picks,
strategies/nsga2.py's POP_SIZE, the directives' three plans a parent)."""


LLM_PLANNED = (*GAIN_CHOSEN, "harnesspro-v1", "no-synth")
"""The strategies improver 'llm' plans for."""


class EvolutionConfig(Strict):
    epochs: int = Field(3, ge=0, le=MAX_REPEATS)
    """Rounds of analyse -> plan -> edit -> evaluate -> select after the seed's evaluation."""
    rollouts_per_task: int = Field(3, ge=1, le=MAX_REPEATS)
    """G: rollouts of every candidate on every coreset task."""
    max_survivors: int = Field(3, ge=1, le=MAX_REPEATS)
    """At most this many distinct candidates are selected per epoch."""
    confirm_attempts: int = Field(0, ge=0, le=MAX_REPEATS)
    """Once the search ends, the seed and the operating points get this many more coreset
    attempts each (attempts G, G+1, ...: new random draws, kept in reserve within
    `evaluation.max_rollouts`) and the last selection is made again on every attempt
    (harnesspro/evolution/confirm.py); 0 = none."""
    improver: Literal["catalog", "llm"] = "catalog"
    """How analyzer, planner and editor work (catalog = offline mechanism catalog; llm = the
    `improver_model`, falling back to the catalog with a recorded reason)."""
    improver_model: ImproverConfig = ImproverConfig()
    """The model of the `llm` improver and of the `llm` test synthesizer."""
    synthesizer: Literal["offline", "llm"] = "offline"
    """How the frozen tests are written before epoch 1: offline = checks voted by the seed's
    rollouts; llm = one executable test per coreset and validation task written by the
    `improver_model`, run against the seed's rollouts (offline checks when it fails twice)."""
    strategy: Literal[
        "harnesspro",
        "harnesspro-no-analyzer",
        "harnesspro-flat-prior",
        "harnesspro-no-screen",
        "harnesspro-raw",
        "harnesspro-catalog",
        "harnesspro-v1",
        "random",
        "nsga2",
        "rho",
        "balance",
        "no-planner",
        "no-synth",
    ] = "harnesspro"
    """How the search spends its budget (harnesspro/evolution/strategies/): the method itself,
    `harnesspro` (each epoch the analyzer diagnoses the selected parents, the planner proposes
    changes for its findings under three directives, the surrogate chooses which are edited
    onto their parents by expected hypervolume gain per region of the front; the first epoch
    screens the levers the findings point to; strategies/loop.py); its ablations
    `harnesspro-no-analyzer` (the findings withheld from the planner and the surrogate's
    priors), `harnesspro-flat-prior` (priors centred on no effect), `harnesspro-no-screen`
    (no screening epoch: the surrogate picks from the first epoch on) and `harnesspro-raw`
    (operating points chosen on raw coreset estimates, not the surrogate's); the previous default
    `harnesspro-catalog` (a screening epoch, then catalog genomes on the seed by expected
    hypervolume gain); the method before it, `harnesspro-v1` (three directives per survivor,
    bundles along lineages); or a baseline/ablation for `harnesspro bench`; `no-synth` is
    `harnesspro-v1` scored with a trajectory judgement instead of the frozen tests."""
    judge_trajectory: bool = True
    """A rollout passes a frozen synthesized test that compares no output's value (or an llm
    test) only when the judgement passes it too (improvers/testsynth/judge.py: from the
    gateway's chat log and the rollout's status, never the harness's trajectory); where the
    test compares values, the values decide (evaluation/scoring.needs_judgement).
    false = the frozen test alone. `no-synth` scores by the judgement alone and refuses
    false."""
    consensus: bool = True
    """After each score step, refine every offline frozen test from the search rollouts scored
    so far: an aspect the test leaves open and a clear majority of the task's rollouts agree
    on becomes a check (evaluation/refinement.py, testsynth/consensus.py). false = the frozen
    tests as the seed's rollouts made them. `no-synth` has no frozen test and refuses it."""
    exploration: bool = False
    """Rank the catalog planner's mechanisms by a draw from each prediction's uncertainty
    (Thompson sampling, planner/exploration.py) instead of its mean, so mechanisms with a
    near-zero prior get tried. Acts on the catalog improver of `harnesspro-v1` and `no-synth`;
    other strategies and improver 'llm' refuse it."""
    disjoint_plans: bool | None = None
    """One survivor's plans share no mechanism (a screening design: with bundles, the three
    directives' plans measure as many distinct mechanisms as they hold); unset = true. Acts on
    the catalog improver of `harnesspro-v1` and `no-synth`; other strategies and improver 'llm'
    refuse it when set."""
    racing: bool = False
    """Evaluate new candidates on attempt 0 first and stop spending on those dominated with
    high probability (90%) before the full G."""

    bundle: int | None = Field(None, ge=1, le=8)
    """Most mechanisms per catalog plan: each directive's best mechanism joined by the next
    best that agree with the directive, one per lever (planner/catalog.py:bundle_for); 1 = one
    mechanism per plan; unset = `DEFAULT_BUNDLE`. Acts on the catalog planner of
    `harnesspro-v1` and `no-synth` (and on the llm planner's catalog fallback) and on
    `no-planner`'s random plans; other strategies refuse it."""

    composer: bool = False
    """After each epoch's evaluation, per parent: merge two siblings that gained on different
    levers (git three-way merge, validated and evaluated like any candidate), pick one, or
    keep the base (harnesspro/evolution/compose.py)."""

    def confirm_reserve(self, coreset_size: int) -> int:
        """Rollouts the search leaves to the confirmation: the seed and up to `max_survivors`
        operating points, `confirm_attempts` more attempts on each coreset task."""
        return (1 + self.max_survivors) * coreset_size * self.confirm_attempts

    @property
    def plans_disjoint(self) -> bool:
        """Whether the catalog planner keeps one survivor's plans disjoint."""
        return self.disjoint_plans is None or self.disjoint_plans

    @property
    def plan_bundle(self) -> int:
        """Mechanisms per catalog plan in effect."""
        return self.bundle or DEFAULT_BUNDLE

    @model_validator(mode="after")
    def _switches_that_act(self) -> EvolutionConfig:
        if self.racing and self.rollouts_per_task == 1:
            raise ValueError("racing needs rollouts_per_task >= 2 (G = 1 leaves nothing to stop)")
        if self.strategy == "no-synth" and not self.judge_trajectory:
            raise ValueError(
                "strategy 'no-synth' scores by the trajectory judgement alone and ignores "
                "judge_trajectory: false; remove it or use another strategy"
            )
        if self.strategy == "no-synth" and "consensus" in self.model_fields_set:
            raise ValueError(
                "strategy 'no-synth' has no frozen test to refine and ignores consensus; "
                "remove it or use another strategy"
            )
        method_catalog = (
            self.strategy in ("harnesspro-v1", "no-synth") and self.improver == "catalog"
        )
        chosen = {
            "exploration": self.exploration,
            "disjoint_plans": self.disjoint_plans is not None,
        }
        for key, used in chosen.items():
            if used and not method_catalog:
                raise ValueError(
                    f"{key} acts on the catalog improver's plans of strategy 'harnesspro-v1' or "
                    "'no-synth' and is ignored here; remove it or use those with improver "
                    "'catalog'"
                )
        if self.bundle is not None and self.strategy not in BUNDLED:
            raise ValueError(
                f"strategy '{self.strategy}' does not use the method's planner and ignores "
                f"bundle; remove bundle or use one of {', '.join(BUNDLED)}"
            )
        if self.improver == "llm" and self.strategy not in LLM_PLANNED:
            raise ValueError(
                f"strategy '{self.strategy}' plans from the catalog and ignores improver 'llm'; "
                "use improver 'catalog' or strategy 'harnesspro'"
            )
        return self


class Mode(Strict):
    alpha: float = Field(ge=0.0)
    """Weight of the squared performance gap."""
    beta: float = Field(ge=0.0)
    """Weight of the squared cost gap."""


def _default_modes() -> dict[str, Mode]:
    return {
        "lite": Mode(alpha=0.2, beta=0.8),
        "medium": Mode(alpha=0.5, beta=0.5),
        "heavy": Mode(alpha=0.8, beta=0.2),
    }


class SelectionConfig(Strict):
    modes: dict[str, Mode] = Field(default_factory=_default_modes)
    """Operating points and their J_m weights."""
    validated: bool = False
    """Choose operating points on coreset and validation scores pooled (weighted by tasks):
    each epoch a pick without validation rollouts is validated, then the choice is made
    again, until every pick is validated or the rollout cap stops it."""


class LibraryConfig(Strict):
    """The experience library shared by the user's runs (harnesspro/improvers/library.py)."""

    use: bool = False
    """Record each epoch's measured lessons in the library, and let the planners read the
    lessons earlier runs recorded for the same model and task family."""
    path: Path | None = None
    """The library file (SQLite); None = $XDG_DATA_HOME/harnesspro/library.sqlite, i.e.
    ~/.local/share/harnesspro/library.sqlite."""
    family: str | None = None
    """Task family the lessons are filed under; None = the suite (`builtin` or the folder
    name)."""

    @model_validator(mode="after")
    def _settings_need_use(self) -> LibraryConfig:
        if not self.use and (self.path is not None or self.family is not None):
            raise ValueError("path and family act only with use: true; set it or drop them")
        return self
