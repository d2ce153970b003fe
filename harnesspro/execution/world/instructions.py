"""How much each intent weighs in what the harness told the model: by the sentence's strength
(emphasis), its position (system or user message; later sentences weigh more) and the
prompt's total length (a long prompt dilutes every instruction). The task's own instruction is
left out, so a task about testing does not read as "test your work"."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from harnesspro.execution.world.lexicon import INTENTS, emphasis_marks, intents, sentences
from harnesspro.execution.world.profile import WorldProfile


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def prompt_parts(messages: Sequence[Mapping[str, Any]], instruction: str) -> list[tuple[str, str]]:
    """(role, text) of the harness's prompts: system messages and the first user message,
    the task's instruction cut out."""
    parts = []
    for i, message in enumerate(messages):
        role = message.get("role")
        if role == "system" or (role == "user" and i <= 1):
            text = _text(message).replace(instruction, " ") if instruction else _text(message)
            parts.append((str(role), text))
    return parts


def weights(parts: Sequence[tuple[str, str]], profile: WorldProfile) -> dict[str, float]:
    """Intent -> weight in [0, 1): one minus exp(-sum of its sentences' weights)."""
    total_words = sum(len(text.split()) for _, text in parts)
    dilution = 1.0 / (1.0 + total_words / profile.dilution_words)
    said = dict.fromkeys(INTENTS, 0.0)
    all_sentences = [(role, s) for role, text in parts for s in sentences(text)]
    n = max(len(all_sentences) - 1, 1)
    for k, (role, sentence) in enumerate(all_sentences):
        heard = intents(sentence)
        if not heard:
            continue
        place = profile.system_weight if role == "system" else profile.user_weight
        place *= 1.0 + profile.recency * k / n
        strength = 1.0 + profile.emphasis * (1.0 - math.exp(-emphasis_marks(sentence)))
        for intent in heard:
            said[intent] += place * strength * dilution
    return {intent: 1.0 - math.exp(-w) for intent, w in said.items()}


def repeats_path(messages: Sequence[Mapping[str, Any]], instruction: str, path: str) -> bool:
    """Whether the harness's own text (system or user messages, the task's instruction cut
    out) names `path` exactly."""
    for message in messages:
        if message.get("role") in ("system", "user"):
            text = _text(message).replace(instruction, " ") if instruction else _text(message)
            if path in text:
                return True
    return False
