"""Behaviour profiles of the scripted policy: its hidden sensitivities to each harness lever.

A profile is trusted-side data, like the test split: it is resolved in the driver, shipped to
the gateway with the rollout and never written where a harness or an improver can read it.
`sample_profile(seed)` draws one from the documented distribution (README, "Behaviour
profiles"): for every lever a mode - `help`, `none` or `hurt` - and then magnitudes for that
mode, so that every lever can help, hurt or do nothing. `DEFAULT_PROFILE` keeps the
behaviour the quickstart always had.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field, field_validator

from harnesspro.core.yamlload import YamlTooLarge, load_bounded
from harnesspro.execution.fakes import slips

Mode = Literal["help", "none", "hurt"]
CATEGORIES = (
    "algorithms", "bug-fixing", "data-wrangling", "git", "scripting", "shell-plumbing",
    "text-processing",
)  # fmt: skip
# Symptoms the analyzer reports on the seed, and the levers the catalog offers against each.
# When none of those levers helps under a profile (and one hurts), the symptom misleads.
SYMPTOM_FIXES: dict[str, tuple[str, ...]] = {
    "task_failures": ("verification", "guard", "effort"),
    "unrecovered_errors": ("verification", "guard", "failure_hints"),
    "verbose_replies": ("concision", "effort"),
    "exploration": ("exploration", "notices", "skimming"),
    "long_tool_output": ("compression", "skimming"),
    "many_tool_calls": ("notices",),
    "unparseable_replies": ("format_repair",),
}
P_MODE: dict[Mode, float] = {"help": 0.55, "none": 0.3, "hurt": 0.15}


class BehaviourProfile(BaseModel):
    """How the scripted policy behaves and how each lever changes it (probabilities per step
    or per rollout, multipliers on the slip rate, reply-length factors)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "default"
    """A label for reports; never shown to a harness or an improver."""
    description: str = "the quickstart's behaviour model"
    """Free text for reports; never shown to a harness or an improver."""
    modes: dict[str, Mode] = Field(default_factory=dict)
    """What the sampler drew for each lever (the parameters below are what act)."""
    variant: int = Field(0, ge=0)
    """Which accepted output variant (formatting, ordering) its answers take; 0 = as the
    reference solution writes them."""
    # The base imperfections, with no lever in play.
    p_slip: float = Field(0.30, ge=0, le=1)
    """Chance a reference step slips (a typo that fails, or a quiet kind: see slip_kinds)."""
    slip_kinds: dict[str, float] = Field(default_factory=lambda: {"typo": 1.0})
    """Relative weights of the slip kinds (slips.py: typo, wrong_value, off_by_one,
    missing_rows, wrong_name, skip); the quiet kinds print no error marker."""
    p_notice: float = Field(0.40, ge=0, le=1)
    """Chance a slip is noticed at once and the step redone."""
    p_recheck: float = Field(0.30, ge=0, le=1)
    """Chance of a redundant re-check (`ls`/`cat`) after a step."""
    p_verify: float = Field(0.25, ge=0, le=1)
    """Chance of a final verification nobody asked for."""
    verify_catch: float = Field(1.0, ge=0, le=1)
    """Chance a final verification finds a step still broken (then it reruns from there)."""
    explore: tuple[int, int] = (1, 3)
    """Least and most look-around commands before acting."""
    words: int = Field(60, ge=1)
    """Reasoning words per reply."""
    p_malformed: float = Field(0.03, ge=0, le=1)
    """Chance a tool call's JSON arguments come truncated."""
    # Verification prompts ("verify", "double-check", "make sure ... matches").
    verify_p: float = Field(0.90, ge=0, le=1)
    """Chance of a final verification when the prompts ask for one."""
    verify_notice: float = Field(0.70, ge=0, le=1)
    """Chance a slip is noticed at once when the prompts ask to verify (below p_notice: it
    defers checking to the end)."""
    verify_full_read: bool = False
    """A verification prints whole output files, not their heads: costly on long outputs."""
    # Exploration limits ("avoid unnecessary exploration", "read only what you need").
    direct_explore: tuple[int, int] = (0, 1)
    """Look-around range when the prompts limit exploration."""
    direct_slip: float = Field(1.0, gt=0)
    """Slip multiplier when the prompts limit exploration (acting with less context)."""
    # Skimming prompts ("head/tail/wc instead of cat") and output compression.
    skim_follow: bool = True
    """Reads inputs with `head` when the prompts ask to skim."""
    needs_full_view: tuple[str, ...] = ()
    """Task categories whose steps go wrong more often after an input was seen only in part
    (a compressed tool result, or a skimmed read)."""
    hidden_slip: float = Field(1.0, gt=0)
    """Slip multiplier, on those categories, for steps after a partial view of an input."""
    reread_folded: float = Field(0.0, ge=0, le=1)
    """Chance it re-reads a folded (compressed) result with a narrower command."""
    # Concision prompts ("be concise", "keep replies short").
    concise_words: float = Field(0.2, gt=0)
    """Reply-length factor when the prompts ask for concise replies."""
    concise_slip: float = Field(1.0, gt=0)
    """Slip multiplier when the prompts ask for concise replies."""
    # Reasoning effort (the request's `reasoning_effort`; medium when absent).
    effort_slip: dict[str, float] = Field(
        default_factory=lambda: {"low": 1.6, "medium": 1.0, "high": 0.5}
    )
    """Slip multiplier per reasoning effort, on a medium task."""
    difficulty_weight: dict[str, float] = Field(
        default_factory=lambda: {"easy": 1.0, "medium": 1.0, "hard": 1.0}
    )
    """Exponent on the effort multiplier per task difficulty (effort matters more when > 1)."""
    effort_words: dict[str, float] = Field(
        default_factory=lambda: {"low": 0.5, "medium": 1.0, "high": 2.0}
    )
    """Reply-length factor per reasoning effort."""
    reasoning_tokens: dict[str, int] = Field(
        default_factory=lambda: {"low": 0, "medium": 0, "high": 150}
    )
    """Reasoning tokens reported per call per reasoning effort."""
    # Budget notices, near-cap warnings and blocks (in tool results).
    notice_stop: float = Field(1.0, ge=0, le=1)
    """Chance a finishing notice stops further exploration and re-checks."""
    notice_rush: float = Field(0.0, ge=0, le=1)
    """Chance a finishing notice makes it submit at once, unfinished steps dropped."""
    # Hints on failed commands ("that command failed: fix it and run it again").
    hint_notice: float = Field(0.40, ge=0, le=1)
    """Chance a slip is noticed at once when its failed result carries a fix-and-retry hint
    (the default, equal to p_notice's default, ignores hints)."""
    # Submission guards ("[guard] ... refused").
    guard_redo: float = Field(1.0, ge=0, le=1)
    """Chance a refused submission makes it verify and rerun what it slipped on."""
    # Format repair and fenced mode.
    repair_fix: float = Field(1.0, ge=0, le=1)
    """Chance a call resent after a repair request comes back intact."""
    fenced_slip: float = Field(1.0, gt=0)
    """Slip multiplier in fenced mode (no tool schema)."""
    fenced_malformed: float = Field(0.0, ge=0, le=1)
    """Chance a fenced reply misses its closing fence (unparseable)."""

    @field_validator("slip_kinds")
    @classmethod
    def _known_kinds(cls, mix: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(mix) - set(slips.KINDS))
        if unknown:
            raise ValueError(f"unknown slip kinds {unknown}; use {', '.join(slips.KINDS)}")
        if any(w < 0 for w in mix.values()) or sum(mix.values()) <= 0:
            raise ValueError("slip kind weights must be >= 0 with a positive sum")
        return mix

    @computed_field  # type: ignore[prop-decorator]
    @property
    def misleads(self) -> tuple[str, ...]:
        """Symptoms whose catalog fixes all fail to help here, at least one hurting: the
        analyzer's evidence points to the wrong fix."""
        return tuple(
            symptom
            for symptom, levers in SYMPTOM_FIXES.items()
            if levers
            and all(self.modes.get(lever, "help") != "help" for lever in levers)
            and any(self.modes.get(lever) == "hurt" for lever in levers)
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def misleading(self) -> bool:
        """True when some symptom misleads; the benchmark reports these profiles apart."""
        return bool(self.misleads)

    def digest(self) -> str:
        """A content hash: rollouts under different profiles never share a key."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


DEFAULT_PROFILE = BehaviourProfile(
    modes={
        "verification": "help",
        "exploration": "help",
        "compression": "none",
        "skimming": "help",
        "concision": "help",
        "effort": "help",
        "notices": "help",
        "guard": "help",
        "format_repair": "help",
        "fenced": "none",
        "failure_hints": "none",
    }
)


class ProfileError(Exception):
    """A profile file that cannot be used; the message is one sentence naming it."""


def load_profile(path: Path) -> BehaviourProfile:
    """A profile from a YAML or JSON file of `BehaviourProfile` fields (the rest default)."""
    try:
        data = load_bounded(path.read_text()) or {}
    except FileNotFoundError:
        raise ProfileError(f"{path}: no such profile file; fix model.behaviour.profile.") from None
    except yaml.YAMLError:
        raise ProfileError(f"{path}: not valid YAML or JSON; fix the profile file.") from None
    except YamlTooLarge as exc:
        raise ProfileError(f"{path}: {exc}.") from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: a profile must be a mapping of fields.")
    data = {k: v for k, v in data.items() if k not in ("misleads", "misleading")}
    try:
        return BehaviourProfile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ProfileError(f"{path}: field '{where}': {first['msg']}; fix the value.") from None


Fields = dict[str, Any]


def _u(rng: random.Random, lo: float, hi: float) -> float:
    return round(rng.uniform(lo, hi), 3)


def _base(rng: random.Random) -> Fields:
    lo = rng.choice((0, 1))
    return {
        "p_slip": _u(rng, 0.15, 0.45),
        "p_notice": _u(rng, 0.25, 0.55),
        "p_recheck": _u(rng, 0.1, 0.5),
        "p_verify": _u(rng, 0.1, 0.4),
        "verify_catch": _u(rng, 0.6, 1.0),
        "explore": (lo, lo + rng.choice((1, 2, 3))),
        "words": int(rng.uniform(30, 100)),
        "variant": rng.randrange(1 << 16),
    }


# One function per lever: the fields its mode sets, magnitudes drawn within the mode's range.
def _verification(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":  # the request changes nothing
        return {"verify_p": f["p_verify"], "verify_notice": f["p_notice"]}
    if mode == "help":
        notice = _u(rng, f["p_notice"] + 0.15, 0.95)
        return {"verify_p": _u(rng, 0.8, 1), "verify_notice": notice,
                "verify_full_read": rng.random() < 0.5}  # fmt: skip
    # It defers checking to the end, and the end check reads everything and catches little.
    return {"verify_p": _u(rng, 0.8, 1), "verify_notice": _u(rng, 0.0, f["p_notice"] * 0.5),
            "verify_full_read": True, "verify_catch": _u(rng, 0.0, 0.3)}  # fmt: skip


def _exploration(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":
        return {"direct_explore": f["explore"], "direct_slip": 1.0}
    if mode == "help":  # less noise, better focus
        return {"direct_explore": (0, 1), "direct_slip": _u(rng, 0.6, 0.95)}
    return {"direct_explore": (0, 0), "direct_slip": _u(rng, 1.4, 2.2)}  # acting blind


def _needs(rng: random.Random, f: Fields) -> Fields:
    needs = tuple(c for c in CATEGORIES if rng.random() < 0.4) or (rng.choice(CATEGORIES),)
    return {"needs_full_view": f.get("needs_full_view") or needs,
            "hidden_slip": f.get("hidden_slip") or _u(rng, 1.8, 3.0)}  # fmt: skip


def _compression(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":  # it re-reads whatever was folded: the saving is spent again
        return {"reread_folded": 1.0}
    if mode == "help":  # the folded part never mattered
        return {"reread_folded": 0.0}
    return {**_needs(rng, f), "reread_folded": _u(rng, 0.0, 0.4)}


def _skimming(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":
        return {"skim_follow": False}
    if mode == "help":
        return {"skim_follow": True}
    return {"skim_follow": True, **_needs(rng, f)}  # skimmed reads hide what it needs


def _concision(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":
        return {"concise_words": 1.0, "concise_slip": 1.0}
    if mode == "help":
        return {"concise_words": _u(rng, 0.15, 0.4), "concise_slip": _u(rng, 0.9, 1.05)}
    return {"concise_words": _u(rng, 0.2, 0.5), "concise_slip": _u(rng, 1.4, 2.2)}


def _effort(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    tokens = {"low": 0, "medium": 0, "high": int(rng.uniform(60, 400))}
    words = {"low": _u(rng, 0.3, 0.8), "medium": 1.0, "high": _u(rng, 1.3, 3.0)}
    common = {"reasoning_tokens": tokens, "effort_words": words}
    weight = {"easy": _u(rng, 0.2, 0.8), "medium": 1.0, "hard": _u(rng, 1.2, 2.0)}
    if mode == "none":
        return {**common, "effort_slip": {"low": 1.0, "medium": 1.0, "high": 1.0}}
    if mode == "help":
        slip = {"low": _u(rng, 1.2, 2.0), "medium": 1.0, "high": _u(rng, 0.3, 0.7)}
    else:  # overthinking: high effort slips more, low effort no worse
        slip = {"low": _u(rng, 0.8, 1.0), "medium": 1.0, "high": _u(rng, 1.1, 1.5)}
    return {**common, "effort_slip": slip, "difficulty_weight": weight}


def _notices(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":
        return {"notice_stop": 0.0, "notice_rush": 0.0}
    if mode == "help":
        return {"notice_stop": _u(rng, 0.7, 1.0), "notice_rush": 0.0}
    return {"notice_stop": _u(rng, 0.5, 1.0), "notice_rush": _u(rng, 0.4, 0.9)}


def _failure_hints(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    notice = f["p_notice"]
    if mode == "none":
        return {"hint_notice": notice}
    if mode == "help":
        return {"hint_notice": _u(rng, min(1.0, notice + 0.2), 1.0)}
    return {"hint_notice": _u(rng, 0.0, notice * 0.5)}  # it rewrites from scratch, later


def _guard(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    # none and hurt alike resubmit unchanged; hurt because the refusal still costs a call
    return {"guard_redo": 1.0 if mode == "help" else 0.0}


def _format_repair(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":  # it never emits broken calls: repair has nothing to do
        return {"p_malformed": 0.0, "repair_fix": 1.0}
    fix = 1.0 if mode == "help" else _u(rng, 0.2, 0.5)  # hurt: resends broken calls again
    return {"p_malformed": _u(rng, 0.03, 0.1), "repair_fix": fix}


def _fenced(mode: Mode, rng: random.Random, f: Fields) -> Fields:
    if mode == "none":
        return {"fenced_slip": 1.0, "fenced_malformed": 0.0}
    if mode == "help":
        return {"fenced_slip": _u(rng, 0.7, 0.95), "fenced_malformed": 0.0}
    return {"fenced_slip": _u(rng, 1.2, 1.6), "fenced_malformed": _u(rng, 0.03, 0.1)}


DRAWS: dict[str, Callable[[Mode, random.Random, Fields], Fields]] = {
    "verification": _verification, "exploration": _exploration, "compression": _compression,
    "skimming": _skimming, "concision": _concision, "effort": _effort, "notices": _notices,
    "guard": _guard, "format_repair": _format_repair, "fenced": _fenced,
    "failure_hints": _failure_hints,
}  # fmt: skip


def sample_profile(seed: int) -> BehaviourProfile:
    """A profile drawn from the documented distribution; the same seed, the same profile."""
    rng = random.Random(f"behaviour-profile:{seed}")
    fields = _base(rng)
    modes: dict[str, Mode] = {}
    for lever, draw in DRAWS.items():
        modes[lever] = rng.choices(list(P_MODE), weights=list(P_MODE.values()))[0]
        fields.update(draw(modes[lever], rng, fields))
    fields["slip_kinds"] = slips.sample_mix(seed)
    name = {"name": f"profile-{seed}", "description": f"drawn from seed {seed}"}
    return BehaviourProfile.model_validate({**fields, "modes": modes, **name})


def resolve_profile(seed: int | None, path: Path | None) -> BehaviourProfile:
    """The profile a run uses: drawn from `seed`, read from `path`, or the default."""
    if path is not None:
        return load_profile(path)
    return DEFAULT_PROFILE if seed is None else sample_profile(seed)
