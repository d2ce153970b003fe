"""Recipe builders over the knobs a seed-style harness declares (harness.yaml + prompts/):
hooks added at a hook point, prompt files appended to the system prompt, the system prompt
replaced. The bundled seed declares these knobs in its harness.toml."""

from __future__ import annotations

from typing import Any

from harnesspro.harness.mechanisms.recipes import Recipe, Step, set_to

CONFIG_FILE = "harness.yaml"
"""The seed-style harness's settings file."""

HOOK_KNOBS = {
    "on_step": "step_hooks",
    "on_tool_result": "tool_result_hooks",
    "on_budget": "budget_hooks",
    "on_submit": "submit_hooks",
}
"""The list knob of each hook point (hooks run in list order)."""


def add_hook(point: str, spec: dict[str, Any]) -> Recipe:
    """Add a built-in hook at a hook point (once: an identical entry moves last)."""
    return Recipe((Step(HOOK_KNOBS[point], spec, "add"),))


def add_hooks(*pairs: tuple[str, dict[str, Any]]) -> Recipe:
    return Recipe(tuple(Step(HOOK_KNOBS[point], spec, "add") for point, spec in pairs))


def extra_prompt(name: str, text: str) -> Recipe:
    """Write prompts/<name>.md and add it to the prompt files appended to the system prompt
    (a set knob: kept sorted, so two routes to the same mechanisms give the same tree)."""
    rel = f"prompts/{name}.md"
    return Recipe((Step("system_extra", rel, "add"),), files=((rel, text),))


def replace_system_prompt(text: str) -> Recipe:
    return set_to("system_prompt", text)
