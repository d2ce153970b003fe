"""mini-swe-agent behind the HarnessPro harness contract.

mini-swe-agent's own loop (DefaultAgent, LitellmModel with bash tool calls, LocalEnvironment)
runs the task in its working directory against the gateway, with the stock `mini.yaml`
prompts plus the overrides in config.yaml. Two small additions: a reply without a tool call
is the final answer (mini's `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` works too), and
mini's messages are written to HARNESSPRO_OUT/trajectory.jsonl after every step.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# Offline and sandbox friendly; set before mini-swe-agent and litellm are imported.
os.environ.update(
    LITELLM_LOCAL_MODEL_COST_MAP="True",  # no cost-map download at import
    LITELLM_OFFLINE_MODE="true",
    MSWEA_SILENT_STARTUP="1",
    MSWEA_GLOBAL_CONFIG_DIR="/tmp/mini-swe-agent",  # HOME is a scratch /tmp in the sandbox
    MSWEA_COST_TRACKING="ignore_errors",  # the gateway meters cost; the model may be unpriced
    MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT="1",  # the gateway already retries the upstream
)

import openai  # noqa: E402
import yaml  # noqa: E402
from minisweagent import package_dir  # noqa: E402
from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.environments.local import LocalEnvironment  # noqa: E402
from minisweagent.exceptions import Submitted  # noqa: E402
from minisweagent.models.litellm_model import LitellmModel  # noqa: E402
from minisweagent.utils.serialize import recursive_merge  # noqa: E402

OUT = Path(os.environ["HARNESSPRO_OUT"])
STATUS = {"Submitted": "submitted", "LimitsExceeded": "step_cap", "TimeExceeded": "step_cap"}


class Model(LitellmModel):
    def _parse_actions(self, response: Any) -> list[dict[str, Any]]:
        if not response.choices[0].message.tool_calls:
            return []  # the final answer; Agent.execute_actions ends the run
        return super()._parse_actions(response)


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
    stock = yaml.safe_load((package_dir / "config" / "mini.yaml").read_text())
    ours = yaml.safe_load((Path(__file__).parent / "config.yaml").read_text())
    config = recursive_merge(stock, ours)
    config["model"]["model_kwargs"] |= {
        "api_base": os.environ["OPENAI_BASE_URL"],
        "api_key": os.environ["OPENAI_API_KEY"],
    }
    model = Model(model_name=f"openai/{os.environ['HARNESSPRO_MODEL']}", **config["model"])
    env = LocalEnvironment(**{**config["environment"], "cwd": task["workdir"]})
    agent = Agent(model, env, **config["agent"])
    try:
        status = STATUS.get(agent.run(task["instruction"]).get("exit_status", ""), "model_error")
    except openai.APIError as exc:  # litellm's errors subclass openai's
        status = "budget_exhausted" if getattr(exc, "status_code", 0) == 402 else "model_error"
    tool_calls = sum(len(m.get("extra", {}).get("actions", [])) for m in agent.messages)
    result = {"status": status, "steps": agent.n_calls, "tool_calls": tool_calls}
    (OUT / "result.json").write_text(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
