"""Drawing a world-v3 profile from a seed, with the structural knobs a benchmark chooses.

The ranges are fitted to the real model's calibration table (docs/calibration/qwen-table.jsonl)
and to published figures where the table says nothing. Where a range comes from:

- Noise between identical trials, from published agent measurements: 43-64% of tau-bench tasks
  flip their verdict between identical trials, and one SWE-bench Verified run's pass@1 moves
  2.2-6.0 points. With `common_draws` off, the base slip odds (`slip_logit`), the context
  growth and the per-task spread (`task_sd`) are sized so that a mid-pass task flips in about
  that share of identical pairs.
- The real model's screen (Qwen2.5-Coder-0.5B on the easy suite): the calibration base passed
  1 of 25 screened rollouts, and the seed as shipped 0 of 12, because its tool calls come back
  as text. Its chat logs show the hidden factors: no-op `exit 0` commands after the work,
  scripts sent as shell commands, the same failing command sent again ten times, output
  written under a near name. Their ranges reach up to such rates (`idle`, `repeat`,
  `script_slip`, `near_miss`); the screen fixes no point inside them.
- The real model's calibration table (first attempt of all 19 variants, 2026-12-06): the base
  passed 2 of 12, 7 of its 12 rollouts spent the 10-call budget (a wrong first command, then
  empty fenced blocks or the error text sent back as a command), and adding a catalog
  mechanism raised tokens a rollout by +7% to +360% (median +191%: more words in a loop that
  runs to the budget). A v3 profile reproduces those figures near `slip_logit` 1.4, `idle`
  0.8 and `idle_wake` 0.05 (base 2 of 12, half the rollouts at the budget, singles +107% to
  +155% tokens); the ranges of those three were widened to reach it while keeping the
  published agents' lower slip rates inside (`slip_logit` from -3.0..-1.2 to -3.0..1.5,
  `idle` from 0..0.6 to 0..0.9, `idle_wake` from 0.05..0.5 to 0.02..0.5).
- The complete calibration table (684 rows, 2026-12-07; docs/real-model.md "Real model vs the
  worlds") against ten profiles of the ranges above: the real model sat outside v3's 5-95% on
  five figures (weaker, helped by no catalog change, fewer verdict flips, more tokens per
  change). What the real rows show, and the refit it gave (a world-only commit; the search
  never measured across it):
  - Its tasks split: the three script-writing tasks pass 0-2% (the script is sent as a shell
    command or left in a ```python block), the rest 9-57%; its flip share (0.34) is what that
    spread gives binomially. `script_slip` 0..0.4 -> 0..0.95 and `task_sd` 0.3..1.0 ->
    0.8..2.2, so some profiles have tasks they nearly never pass and the flip share can fall
    that low.
  - Base pass 0.22, below 95% of the old profiles: `slip_logit` -3.0..1.5 -> -2.0..2.5.
  - 25 of its 36 base rollouts run to the 10-call budget (old profiles: at most a tenth):
    `idle` 0..0.9 -> 0.2..1.0, `idle_wake` 0.02..0.5 -> 0.02..0.3.
  - No single catalog change raised its pass rate (asking it to check its work before
    submitting: +0 [-8, +8]; 6 of 8 singles lower it); the old profiles' best single was
    verification or whole reads (+8..+17).
    Checking one's own work without new evidence rarely fixes it (Huang et al. 2024, "Large
    Language Models Cannot Self-Correct Reasoning Yet"): `check_gain` 0.5..3.0 -> 0..1.5,
    `catch` 0.3..0.9 -> 0.1..0.6, `whole_gain` 0..1.5 -> 0..1.0, and an instruction backfires
    with chance 0.4 (was 0.15).
- Guesses, to be refitted: everything else (instruction weighting, sensitivities, the
  interaction terms, error use, format fragility, words, effort and temperature responses).

The knobs: `common_draws` (draws shared by every candidate, or fresh per rollout),
`interaction` (scale of the factor-by-factor terms, each drawn N(0, 1)), `null_share` (each
sensitivity, interaction terms included, is exactly zero with this chance: changes that act
on it do nothing) and `hidden_factors` (off: the four hidden factors are zero).
"""

from __future__ import annotations

import random
from typing import Any

from harnesspro.execution.world.profile import WorldProfile

# Sensitivities null_share may set to exactly zero.
NULLABLE = (
    "context_gain", "check_gain", "survey_gain", "focus_gain", "whole_gain", "whole_read",
    "brief_gain", "stop_gain", "files_gain", "path_gain", "effort_gain", "format_context",
    "temperature_slip", "temperature_repeat",
)  # fmt: skip
# Instruction sensitivities that may backfire (drawn negative with this chance).
SIGNED = ("check_gain", "survey_gain", "focus_gain", "whole_gain")
P_BACKFIRE = 0.4
HIDDEN = ("idle", "script_slip", "repeat", "near_miss")
INTERACTIONS = ("brief_check", "context_catch", "effort_errors", "focus_slip")


def _ranges() -> dict[str, tuple[float, float]]:
    return {
        "slip_logit": (-2.0, 2.5), "context_gain": (0.5, 2.5), "context_scale": (1500, 6000),
        "quiet_share": (0.2, 0.6), "system_weight": (0.8, 1.2), "user_weight": (0.4, 1.0),
        "recency": (0.0, 1.0), "emphasis": (0.0, 1.5), "dilution_words": (300, 1500),
        "check_logit": (-2.5, 0.0), "check_gain": (0.0, 1.5), "catch": (0.1, 0.6),
        "explore_mean": (0.5, 3.0), "survey_gain": (0.0, 1.0), "focus_gain": (0.3, 2.0),
        "whole_gain": (0.0, 1.0), "whole_read": (1.0, 4.0), "brief_gain": (0.5, 2.0),
        "stop_gain": (0.3, 1.0), "files_gain": (0.3, 1.0), "path_gain": (0.3, 1.0),
        "error_use": (0.2, 0.8), "format_logit": (-5.0, -2.5), "format_context": (0.0, 2.0),
        "format_fix": (0.5, 1.0), "words": (20, 120), "ramble": (0.0, 0.1),
        "effort_gain": (0.0, 1.5), "effort_words": (0.0, 0.5), "effort_tokens": (20, 150),
        "temperature_slip": (0.0, 1.0), "temperature_repeat": (0.0, 1.5),
        "idle": (0.2, 1.0), "idle_wake": (0.02, 0.3), "script_slip": (0.0, 0.95),
        "repeat": (0.0, 0.8), "near_miss": (0.0, 0.2), "task_sd": (0.8, 2.2),
        "task_factor_sd": (0.2, 0.6),
    }  # fmt: skip


def draw_profile(
    seed: int,
    common_draws: bool = True,
    interaction: float = 0.5,
    null_share: float = 0.3,
    hidden_factors: bool = True,
) -> WorldProfile:
    """A profile drawn from the documented distribution; the same arguments, the same profile.
    The nulls, signs and interaction terms have streams of their own, so changing a knob
    leaves the other draws as they were."""
    rng = random.Random(f"world-v3-profile:{seed}")
    fields: dict[str, Any] = {k: round(rng.uniform(lo, hi), 3) for k, (lo, hi) in _ranges().items()}
    signs = random.Random(f"world-v3-signs:{seed}")
    for name in SIGNED:
        fields[name] *= -1 if signs.random() < P_BACKFIRE else 1
    nulls = random.Random(f"world-v3-nulls:{seed}")
    for name in NULLABLE:
        if nulls.random() < null_share:
            fields[name] = 0.0
    terms = random.Random(f"world-v3-terms:{seed}")
    fields.update({name: round(terms.gauss(0.0, 1.0), 3) for name in INTERACTIONS})
    term_nulls = random.Random(f"world-v3-term-nulls:{seed}")
    for name in INTERACTIONS:  # a factor-by-factor term is a sensitivity too
        if term_nulls.random() < null_share:
            fields[name] = 0.0
    if not hidden_factors:
        fields.update(dict.fromkeys(HIDDEN, 0.0))
    knobs = {"common_draws": common_draws, "interaction": interaction, "null_share": null_share}
    return WorldProfile(
        name=f"world-v3-{seed}", seed=seed, hidden_factors=hidden_factors, **knobs, **fields
    )
