"""Edit primitives over the seed-style harness layout (harness.yaml + prompts/)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.core import yamlio

Edit = Callable[[Path], None]
Check = Callable[[Path], bool]
CONFIG_FILE = "harness.yaml"
"""The seed-style harness's settings: the catalog's edits need it."""


def load_config(worktree: Path) -> dict[str, Any]:
    config = yamlio.load((worktree / CONFIG_FILE).read_text())
    return config if isinstance(config, dict) else {}


def update_config(worktree: Path, change: Callable[[dict[str, Any]], None]) -> None:
    config = load_config(worktree)
    change(config)
    (worktree / CONFIG_FILE).write_text(yamlio.dump(config))


def set_keys(**values: Any) -> tuple[Edit, Check]:
    """Set top-level harness.yaml keys (dicts are merged one level deep)."""

    def change(config: dict[str, Any]) -> None:
        for key, value in values.items():
            if isinstance(value, dict) and isinstance(config.get(key), dict):
                config[key].update(value)
            else:
                config[key] = value

    def check(worktree: Path) -> bool:
        config = load_config(worktree)
        for key, value in values.items():
            current = config.get(key)
            if isinstance(value, dict):
                if not isinstance(current, dict) or any(
                    current.get(k) != v for k, v in value.items()
                ):
                    return False
            elif current != value:
                return False
        return True

    return (lambda worktree: update_config(worktree, change)), check


def add_hook(point: str, spec: dict[str, Any]) -> tuple[Edit, Check]:
    """Append a built-in hook at a hook point (once: an identical entry is not repeated)."""

    def change(config: dict[str, Any]) -> None:
        hooks = config.setdefault("hooks", {}).setdefault(point, []) or []
        hooks[:] = [h for h in hooks if h != spec] + [spec]
        config["hooks"][point] = hooks

    def check(worktree: Path) -> bool:
        hooks = (load_config(worktree).get("hooks") or {}).get(point) or []
        return spec in hooks

    return (lambda worktree: update_config(worktree, change)), check


def add_hooks(*pairs: tuple[str, dict[str, Any]]) -> tuple[Edit, Check]:
    edits = [add_hook(point, spec) for point, spec in pairs]

    def edit(worktree: Path) -> None:
        for apply, _ in edits:
            apply(worktree)

    return edit, lambda worktree: all(check(worktree) for _, check in edits)


def extra_prompt(name: str, text: str) -> tuple[Edit, Check]:
    """Add a prompt file appended to the system prompt."""
    rel = f"prompts/{name}.md"

    def edit(worktree: Path) -> None:
        (worktree / rel).write_text(text)

        def change(config: dict[str, Any]) -> None:
            extra = config["prompts"].setdefault("system_extra", []) or []
            # Sorted: prompt additions commute, so two routes to the same set of mechanisms
            # give the same tree and are deduplicated.
            config["prompts"]["system_extra"] = sorted({*extra, rel})

        update_config(worktree, change)

    def check(worktree: Path) -> bool:
        listed = rel in (load_config(worktree).get("prompts", {}).get("system_extra") or [])
        return listed and (worktree / rel).read_text() == text

    return edit, check


def replace_system_prompt(text: str) -> tuple[Edit, Check]:
    def edit(worktree: Path) -> None:
        (worktree / "prompts" / "system.md").write_text(text)

    return edit, lambda worktree: (worktree / "prompts" / "system.md").read_text() == text
