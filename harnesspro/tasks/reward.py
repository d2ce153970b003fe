"""The reward a verifier left: reward.txt or reward.json in its own fresh /logs/verifier, read
without following links and with a size cap, as a number or the reason there is none."""

from __future__ import annotations

import json
import math
from pathlib import Path

from harnesspro.sandbox.untrusted import NotAFile, read_text

REWARD_FILES = ("reward.txt", "reward.json")


REWARD_CAP = 4000


def read_rewards(logs: Path) -> tuple[dict[str, str], str]:
    """The reward files the verifier left, as text (capped), and what stood in a reward
    file's place that is not a file ('' when nothing did): never opened through."""
    found: dict[str, str] = {}
    for name in REWARD_FILES:
        try:
            found[name] = read_text(logs / name, REWARD_CAP)
        except FileNotFoundError:
            continue
        except NotAFile as exc:
            return found, str(exc)
    return found, ""


def reward_of(rewards: dict[str, str], planted: str = "") -> tuple[float | None, str]:
    """The reward from reward.txt or reward.json, and where it came from (or why not). A
    reward file that is not a regular file (`planted`) is a failure, 0."""
    if planted:
        return 0.0, f"{planted}, not a file (not read)"
    if "reward.txt" in rewards:
        return _number(rewards["reward.txt"].strip()), "reward.txt"
    if "reward.json" in rewards:
        try:
            data = json.loads(rewards["reward.json"])
        except json.JSONDecodeError:
            return None, "reward.json (not JSON)"
        return _number(data.get("reward") if isinstance(data, dict) else data), "reward.json"
    return None, "no reward file"


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None
