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
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, computed_field, field_validator

from harnesspro.core.yamlio import YamlTooLarge, load_bounded
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
