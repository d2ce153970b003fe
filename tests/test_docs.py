"""The documentation stays true to the code: every run-config key is on docs/configuration.md
(and the page names no key the config lacks), and the README stays short."""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harnesspro.core.config import RunConfig

ROOT = Path(__file__).parents[1]
CONFIGURATION = ROOT / "docs" / "configuration.md"
# A dict of models (`prices`, `selection.modes`) is documented with a placeholder segment such
# as `<model>` or `<mode>`; both sides compare it as `*`.
ANY_NAME = "*"


def _models_in(annotation: Any) -> Iterator[tuple[str, type[BaseModel]]]:
    """The models a field's type holds, with the key segments a dict adds before them."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield "", annotation
        return
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType, list, tuple, typing.Annotated):
        for arg in args:
            yield from _models_in(arg)
    elif origin is dict and args:
        for segment, model in _models_in(args[1]):
            yield f"{ANY_NAME}.{segment}", model


def config_keys(model: type[BaseModel] = RunConfig, prefix: str = "") -> set[str]:
    """Every dotted key of `model`, sections included, descending into nested models."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        key = prefix + name
        keys.add(key)
        for segment, nested in _models_in(field.annotation):
            keys |= config_keys(nested, f"{key}.{segment}")
    return keys


def documented_keys() -> set[str]:
    """The keys in the first column of the page's tables: | `evolution.epochs` | ..."""
    keys = re.findall(r"^\| `([^`]+)` \|", CONFIGURATION.read_text(), flags=re.MULTILINE)
    return {re.sub(r"<[^>]+>", ANY_NAME, key) for key in keys}


def test_the_walk_sees_nested_models() -> None:
    keys = config_keys()
    assert {
        "evolution.rollouts_per_task",
        "evolution.improver_model.request",
        "model.behaviour.seed",
        "model.latency.tokens_per_s",
        "gateway.rollout_budget.max_tokens",
        f"prices.{ANY_NAME}.cached_input",
        f"selection.modes.{ANY_NAME}.alpha",
    } <= keys


def test_every_config_key_is_documented() -> None:
    missing = sorted(config_keys() - documented_keys())
    assert not missing, f"add these keys to docs/configuration.md: {missing}"


def test_no_documented_key_is_unknown() -> None:
    unknown = sorted(documented_keys() - config_keys())
    assert not unknown, f"docs/configuration.md documents keys the config lacks: {unknown}"


def test_readme_is_short() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail to docs/"


def test_readme_links_to_docs_resolve() -> None:
    """mkdocs checks links between docs pages; the README's links into docs/ are checked here."""
    targets = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert targets
    assert not [t for t in targets if not (ROOT / t).is_file()]
