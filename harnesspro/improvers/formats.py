"""Response formats an improver request may ask for, and the probe's schema."""

from __future__ import annotations

from typing import Any

PROBE_SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
FORMATS = ("json_schema", "json_object")
"""The response formats `auto` tries, in order: OpenAI's `json_schema`, then `json_object`
with the schema beside it (llama-cpp-python's server constrains its output to it)."""


def response_format(kind: str, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The `response_format` request field of a kind (see FORMATS) for a JSON schema."""
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    return {"type": "json_object", "schema": schema}
