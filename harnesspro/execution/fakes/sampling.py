"""Choosing the behaviour profile of a run: drawn from a seed (the benchmark's profiles: each
lever helps, does nothing or hurts, its strength drawn from a documented range), loaded from
a file, or the default."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from harnesspro.execution.fakes import slips
from harnesspro.execution.fakes.behaviour import (
    CATEGORIES,
    DEFAULT_PROFILE,
    BehaviourProfile,
    Fields,
    Mode,
    load_profile,
)


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


P_MODE: dict[Mode, float] = {"help": 0.55, "none": 0.3, "hurt": 0.15}


DRAWS: dict[str, Callable[[Mode, random.Random, Fields], Fields]] = {
    "verification": _verification, "exploration": _exploration, "compression": _compression,
    "skimming": _skimming, "concision": _concision, "effort": _effort, "notices": _notices,
    "guard": _guard, "format_repair": _format_repair, "fenced": _fenced,
    "failure_hints": _failure_hints,
}  # fmt: skip


def resolve_profile(seed: int | None, path: Path | None) -> BehaviourProfile:
    """The profile a run uses: drawn from `seed`, read from `path`, or the default."""
    if path is not None:
        return load_profile(path)
    return DEFAULT_PROFILE if seed is None else sample_profile(seed)
