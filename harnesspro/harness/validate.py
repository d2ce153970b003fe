"""Validation of a candidate harness before it gets rollouts."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml


def validate_harness(candidate: Path, seed: Path) -> str:
    """An empty string when valid, else the reason (one sentence).

    Checks: the manifest is present and parses, every immutable path is unchanged from the
    seed, and harness.yaml (when the seed has one) still parses to a mapping.
    """
    manifest = candidate / "harness.toml"
    if not manifest.is_file():
        return "harness.toml is missing"
    try:
        immutable = tomllib.loads(manifest.read_text())["harness"].get("immutable", [])
    except (tomllib.TOMLDecodeError, KeyError) as exc:
        return f"harness.toml does not parse: {exc}"
    for rel in immutable:
        if (
            not (candidate / rel).is_file()
            or (candidate / rel).read_bytes() != (seed / rel).read_bytes()
        ):
            return f"immutable path {rel} differs from the seed"
    config = candidate / "harness.yaml"
    if (seed / "harness.yaml").is_file():
        try:
            if not isinstance(yaml.safe_load(config.read_text()), dict):
                return "harness.yaml is not a mapping"
        except (OSError, yaml.YAMLError) as exc:
            return f"harness.yaml does not parse: {exc}"
    return ""
