"""mini-swe-agent behind the HarnessPro harness contract.

mini-swe-agent's own loop (DefaultAgent with bash tool calls, LocalEnvironment) runs the task
in its working directory against the gateway, with the stock `mini.yaml` prompts plus the
overrides in config.yaml. Its model is mini's tool-call model on the OpenAI client instead of
litellm (same requests, same parsing and observation formatting from mini's own helpers;
importing litellm alone took ~4 s of CPU at every rollout's start). Two small additions: a
reply without a tool call is the final answer (mini's `echo
COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` works too), and mini's messages are written to
HARNESSPRO_OUT/trajectory.jsonl after every step.

`output_format: text` in config.yaml runs mini's text-based mode instead (its
`mini_textbased.yaml` prompts, no tool schema, one fenced command per reply, parsed by mini's
own regex helper; a reply without one is the final answer). Each call's cost is the one the
gateway reports (`usage.cost`), so mini's `cost_limit` acts.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Sandbox friendly; set before mini-swe-agent is imported.
os.environ.update(
    MSWEA_SILENT_STARTUP="1",
    MSWEA_GLOBAL_CONFIG_DIR="/tmp/mini-swe-agent",  # HOME is a scratch /tmp in the sandbox
)

import openai  # noqa: E402
import yaml  # noqa: E402
from minisweagent import package_dir  # noqa: E402
from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.environments.local import LocalEnvironment  # noqa: E402
from minisweagent.exceptions import FormatError, Submitted  # noqa: E402
from minisweagent.models.utils.actions_text import (  # noqa: E402
    format_observation_messages,
    parse_regex_actions,
)
from minisweagent.models.utils.actions_toolcall import (  # noqa: E402
    BASH_TOOL,
    format_toolcall_observation_messages,
    parse_toolcall_actions,
)
from minisweagent.models.utils.openai_multimodal import expand_multimodal_content  # noqa: E402
from minisweagent.utils.serialize import recursive_merge  # noqa: E402

OUT = Path(os.environ["HARNESSPRO_OUT"])
STATUS = {"Submitted": "submitted", "LimitsExceeded": "step_cap", "TimeExceeded": "step_cap"}


# litellm's own request options in mini.yaml's model_kwargs, which the OpenAI client refuses.
LITELLM_ONLY = {"drop_params"}
STOCK = {"toolcall": "mini.yaml", "text": "mini_textbased.yaml"}
"""mini's stock config of each output format."""
ACTION_REGEX = r"```(?:mswea_bash_command|bash)\s*\n(.*?)\n```"
"""A fenced command in text mode: mini's own fence, or a plain ```bash block."""


class Model:
    """mini's Model protocol: one chat completion per step with mini's bash tool; the gateway
    meters cost and retries the upstream, so there is neither cost tracking nor retry here."""

    def __init__(self, model_name: str, config: dict[str, Any], text: bool = False) -> None:
        self.config = {**config, "model_name": model_name}
        self.text = text
        self.kwargs = {
            k: v for k, v in config.get("model_kwargs", {}).items() if k not in LITELLM_ONLY
        }
        self.client = openai.OpenAI(
            base_url=os.environ["OPENAI_BASE_URL"],
            api_key=os.environ["OPENAI_API_KEY"],
            max_retries=0,
        )

    def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
        prepared: Any = [{k: v for k, v in m.items() if k != "extra"} for m in messages]
        tools: dict[str, Any] = {} if self.text else {"tools": [BASH_TOOL]}
        response = self.client.chat.completions.create(
            model=self.config["model_name"], messages=prepared, **tools, **(self.kwargs | kwargs)
        )
        choice = response.choices[0]
        extra = {
            "response": response.model_dump(mode="json"),
            "cost": float(getattr(response.usage, "cost", None) or 0.0),
            "timestamp": time.time(),
        }
        try:
            actions = self._actions(choice)
        except FormatError as exc:  # mini keeps the reply with the error message
            exc.messages[0]["extra"].update(extra)
            raise
        message: dict[str, Any] = {"role": "assistant", "content": choice.message.content or ""}
        if choice.message.tool_calls:  # sent back as they came; nothing else of the reply is
            message["tool_calls"] = [c.model_dump(mode="json") for c in choice.message.tool_calls]
        return {**message, "extra": {"actions": actions, **extra}}

    def _actions(self, choice: Any) -> list[dict[str, Any]]:
        if self.text:
            content = choice.message.content or ""
            if not re.search(ACTION_REGEX, content, re.DOTALL):
                return []  # the final answer
            return parse_regex_actions(
                content,
                action_regex=ACTION_REGEX,
                format_error_template=self.config["format_error_template"],
                template_kwargs={"finish_reason": choice.finish_reason},
            )
        if not choice.message.tool_calls:
            return []  # the final answer; Agent.execute_actions ends the run
        return parse_toolcall_actions(
            choice.message.tool_calls,
            format_error_template=self.config["format_error_template"],
            template_kwargs={"finish_reason": choice.finish_reason},
        )

    def format_message(self, **kwargs: Any) -> dict[str, Any]:
        return expand_multimodal_content(kwargs, pattern=self.config.get("multimodal_regex", ""))

    def format_observation_messages(
        self,
        message: dict[str, Any],
        outputs: list[dict[str, Any]],
        template_vars: dict[str, Any] | None = None,
    ) -> list[dict[str, Any]]:
        if self.text:
            return format_observation_messages(
                outputs,
                observation_template=self.config["observation_template"],
                template_vars=template_vars,
                multimodal_regex=self.config.get("multimodal_regex", ""),
            )
        return format_toolcall_observation_messages(
            actions=message.get("extra", {}).get("actions", []),
            outputs=outputs,
            observation_template=self.config["observation_template"],
            template_vars=template_vars,
            multimodal_regex=self.config.get("multimodal_regex", ""),
        )

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return dict(self.config)

    def serialize(self) -> dict[str, Any]:
        return {"info": {"config": {"model": self.config, "model_type": "run.Model"}}}


class Agent(DefaultAgent):
    def execute_actions(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        if not message["extra"]["actions"]:
            answer = message.get("content") or ""
            extra = {"exit_status": "Submitted", "submission": answer}
            raise Submitted({"role": "exit", "content": answer, "extra": extra})
        return super().execute_actions(message)

    def add_messages(self, *messages: dict[str, Any]) -> list[dict[str, Any]]:
        for message in messages:
            message.setdefault("extra", {}).setdefault("timestamp", time.time())
        return super().add_messages(*messages)

    def save(self, path: Path | None, *extra_dicts: dict[str, Any]) -> dict[str, Any]:
        """Called by mini after every step: rewrite the trajectory from the messages."""
        lines = [json.dumps(event) + "\n" for event in events(self.messages)]
        (OUT / "trajectory.jsonl").write_text("".join(lines))
        return {}


def events(messages: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """mini's messages (after the system and task prompts) in HarnessPro's trajectory schema."""
    step = 0
    for message in messages[2:]:
        extra = message.get("extra", {})
        at = {"step": step, "ts": extra["timestamp"]}
        content = message.get("content") or ""
        if message["role"] == "assistant":
            step += 1
            at["step"] = step
            yield {"type": "model_call", **at, "content": content}
            for action in extra.get("actions", []):
                yield {"type": "tool_call", **at, "command": action["command"]}
        elif "raw_output" in extra:
            output = extra["raw_output"]
            yield {"type": "tool_result", **at, "chars": len(output), "output": output[:2000]}
        elif extra.get("exit_status") == "Submitted":
            yield {"type": "submit", **at, "content": extra.get("submission", "")}
        else:  # a format error, a limit, or a crash
            yield {"type": "error", **at, "message": str(content)[:2000]}


def main() -> int:
    task = json.loads(Path(os.environ["HARNESSPRO_TASK"]).read_text())
    ours = yaml.safe_load((Path(__file__).parent / "config.yaml").read_text())
    text = ours.get("output_format", "toolcall") == "text"
    stock_file = STOCK["text" if text else "toolcall"]
    stock = yaml.safe_load((package_dir / "config" / stock_file).read_text())
    config = recursive_merge(stock, ours)
    model = Model(os.environ["HARNESSPRO_MODEL"], config["model"], text)
    env = LocalEnvironment(**{**config["environment"], "cwd": task["workdir"]})
    agent = Agent(model, env, **config["agent"])
    try:
        status = STATUS.get(agent.run(task["instruction"]).get("exit_status", ""), "model_error")
    except openai.APIError as exc:
        status = "budget_exhausted" if getattr(exc, "status_code", 0) == 402 else "model_error"
    tool_calls = sum(len(m.get("extra", {}).get("actions", [])) for m in agent.messages)
    result = {"status": status, "steps": agent.n_calls, "tool_calls": tool_calls}
    (OUT / "result.json").write_text(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
