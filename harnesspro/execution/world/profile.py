"""A world-v3 profile: the latent behaviour factors of one simulated model, and the world's
structural knobs (draw.py says how a profile is drawn and where each range comes from).

A profile is trusted-side data, like the test split: it travels from the driver to the
gateway with each rollout and nowhere else. Log-odds parameters (`*_logit`, `*_gain` on a
log-odds scale) add to a decision's log-odds; shares and probabilities are in [0, 1].
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harnesspro.core.yamlio import YamlTooLarge, load_bounded


class WorldProfileError(ValueError):
    """A profile file that cannot be used; the message is one sentence naming the fix."""


class WorldProfile(BaseModel):
    """How one simulated model behaves: factor sensitivities, interactions, saturation,
    task-by-factor spread, hidden factors, and the knobs a benchmark sets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    world: Literal["v3"] = "v3"
    """Which world reads this profile."""
    name: str = "world-v3"
    """A label for reports; never shown to a harness or an improver."""
    seed: int = 0
    """Keys the per-task random effects (and names the draw)."""
    # Structural knobs, chosen when a benchmark is measured.
    common_draws: bool = True
    """True: draws keyed by sampling seed (task, attempt) only; false: each rollout of each
    candidate draws afresh, so identical candidates measure differently."""
    interaction: float = Field(0.5, ge=0, le=4)
    """Scale of the factor-by-factor terms (0 = none)."""
    null_share: float = Field(0.3, ge=0, le=1)
    """Share of sensitivities drawn as exactly zero (recorded; the draw applied it)."""
    hidden_factors: bool = True
    """Whether the hidden factors (idling, script-as-command, repeats, near-miss paths) act."""
    # Slips and the context's length.
    slip_logit: float = -2.2
    """Log-odds that a step slips, at an empty context and medium effort."""
    context_gain: float = Field(1.5, ge=0)
    """Log-odds added at a saturated context (saturating curve)."""
    context_scale: float = Field(3000.0, gt=0)
    """Context tokens at which 63% of `context_gain` applies."""
    quiet_share: float = 0.4
    """Share of slips that print no error (a spoiled output, a skipped step)."""
    # How an instruction weighs.
    system_weight: float = Field(1.0, ge=0)
    """Weight of an instruction in a system message."""
    user_weight: float = Field(0.7, ge=0)
    """Weight of an instruction in a user message."""
    recency: float = Field(0.5, ge=0)
    """Extra weight of the last sentence of a prompt over the first (linear in between)."""
    emphasis: float = Field(0.5, ge=0)
    """Extra weight per emphasis mark (must, always, never, capitals, !), saturating."""
    dilution_words: float = Field(600.0, gt=0)
    """Prompt words at which an instruction weighs half as much as in a tiny prompt."""
    # Sensitivities to instruction intents (log-odds or log-multipliers).
    check_logit: float = -1.0
    """Log-odds of checking its work before answering, with no instruction."""
    check_gain: float = 0.0
    """Log-odds added by a fully weighted instruction to check one's work."""
    catch: float = 0.6
    """Chance a check notices a step that is still broken (then it redoes from there)."""
    explore_mean: float = Field(1.5, ge=0)
    """Mean look-around commands before acting."""
    survey_gain: float = 0.0
    """Log-multiplier on exploration from an instruction to look around first."""
    focus_gain: float = 0.0
    """Log-multiplier (subtracted) on exploration from an instruction to limit it."""
    whole_gain: float = 0.0
    """Log-odds of a slip removed when every long input was seen in full."""
    whole_read: float = 0.0
    """Log-odds that a look reads a whole file, raised by an instruction to read inputs whole
    (the base is 0 = an even chance)."""
    brief_gain: float = 0.0
    """Log-multiplier (subtracted) on words per reply from an instruction to be brief."""
    stop_gain: float = 0.0
    """How far an instruction to stop when done relieves idling (0-1 scale of relief)."""
    files_gain: float = 0.0
    """How far an instruction about writing files (heredocs) relieves script-as-command."""
    path_gain: float = 0.0
    """How far the exact output path repeated by the harness relieves near-miss paths."""
    # Error text, format, talk, effort, temperature.
    error_use: float = 0.5
    """Chance it redoes a failed step correctly after an error in the result."""
    format_logit: float = -4.0
    """Log-odds of a malformed tool call (or a missing fence) at an empty context."""
    format_context: float = Field(1.0, ge=0)
    """Log-odds added to a malformed call at a saturated context."""
    format_fix: float = 0.8
    """Chance a resent call is well formed after being told it could not be parsed."""
    words: float = Field(50.0, ge=1)
    """Words per reply at medium effort."""
    ramble: float = 0.05
    """Chance a reply rambles on (eight times the words)."""
    effort_gain: float = Field(0.8, ge=0)
    """Log-odds of a slip removed at saturated reasoning effort (medium sits part way)."""
    effort_words: float = 0.3
    """Relative change in words per effort level."""
    effort_tokens: float = Field(60.0, ge=0)
    """Reasoning tokens per call at effort level 1 (low); grows as level ** 1.5."""
    temperature_slip: float = 0.3
    """Log-odds of a slip added per unit of temperature above 1."""
    temperature_repeat: float = 0.5
    """Log-multiplier (subtracted) on repeating per unit of temperature above 1."""
    # Hidden factors (their symptoms show in trajectories; no single setting names them).
    idle: float = 0.0
    """Chance it keeps issuing no-op commands after the work instead of answering."""
    idle_wake: float = 0.2
    """Chance per idle turn that it answers after all."""
    script_slip: float = 0.0
    """Chance a file-writing step comes out as the file's contents run as a command."""
    repeat: float = 0.0
    """Chance it sends the same failing command again instead of changing it."""
    near_miss: float = 0.0
    """Chance an output is written under a slightly wrong name (quiet)."""
    # Interactions (scaled by `interaction`).
    brief_check: float = 0.0
    """Log-odds of checking removed per unit of brevity weight."""
    context_catch: float = 0.0
    """Log-odds of a check's catch removed at a saturated context."""
    effort_errors: float = 0.0
    """Log-odds of using error text added per effort level above medium."""
    focus_slip: float = 0.0
    """Log-odds of a slip added per unit of exploration-limiting weight."""
    # Task-by-factor effects.
    task_sd: float = Field(0.6, ge=0)
    """Spread (sd, log-odds) of a task's own slip offset."""
    task_factor_sd: float = Field(0.4, ge=0)
    """Spread (sd, log scale) of a task's multiplier on each sensitivity."""

    def digest(self) -> str:
        """A content hash: rollouts under different profiles never share a key."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]


def load_world_profile(path: Path) -> WorldProfile:
    """A profile from a YAML or JSON file of `WorldProfile` fields (the rest default)."""
    try:
        data = load_bounded(path.read_text()) or {}
    except FileNotFoundError:
        raise WorldProfileError(
            f"{path}: no such profile file; fix model.behaviour.profile."
        ) from None
    except (yaml.YAMLError, YamlTooLarge):
        raise WorldProfileError(f"{path}: not valid YAML or JSON; fix the profile file.") from None
    if not isinstance(data, dict):
        raise WorldProfileError(f"{path}: a profile must be a mapping of fields.")
    try:
        return WorldProfile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise WorldProfileError(
            f"{path}: field '{where}': {first['msg']}; fix the value."
        ) from None
