"""Run the shipped adversarial harnesses against tasks: a verifier they fool is broken.

All three solve nothing. `adversarial` plants stdlib shadows, pytest hooks, interpreter hooks,
fake executables and a /tests thief in the workspace; `linker` plants payloads that swap the
reward files for links into the host, and attacks /logs; `probe` attacks the verifier's pytest
process through the modules its tests import (an exit with status 0 at import, rewritten
outcomes, planted configuration). Built-in tasks are attacked through the real
rollout path; external Harbor tasks through the task runtime that `tasks validate` uses
(layout + official verifier).
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.fsnames import shown
from harnesspro.core.model_config import ModelConfig
from harnesspro.core.records import RolloutSpec, Task
from harnesspro.execution.rollout import RolloutInputs, run_rollout
from harnesspro.sandbox.contract import Mount, Sandbox
from harnesspro.tasks.loader import folder_files
from harnesspro.tasks.runtime import TaskUnrunnable, bundle_task, open_task
from harnesspro.tasks.verify import run_verifier

ADVERSARY = Path(__file__).resolve().parent / "bundled" / "adversarial"
LINKER = Path(__file__).resolve().parent / "bundled" / "linker"
PROBE = Path(__file__).resolve().parent / "bundled" / "probe"
IDLE = Path(__file__).resolve().parent / "bundled" / "idle"
"""Does nothing: the floor every verifier must fail, beside the attacks."""


@dataclass(frozen=True)
class Attack:
    """The outcome of attacking one task."""

    task_id: str
    fooled: bool | None
    """True: the verifier passed work nobody did; None: the task could not run here."""
    leaked: tuple[str, ...] = ()
    """Workspace artifact files that hold copies of the task's tests (as `fsnames.shown`)."""
    reason: str = ""
    status: str = ""
    """The rollout's status (`attack_rollout`): a harness's failure, never infrastructure."""
    artifacts: str = ""
    """Everything text-like the rollout kept: trajectory, verifier evidence, reason."""


def attack_rollout(task: Task, sandbox: str = "bubblewrap", harness: Path = ADVERSARY) -> Attack:
    """An adversary as a harness in a real rollout (built-in tasks)."""
    tests = folder_files(task.path / "tests")
    inputs = RolloutInputs(
        spec=RolloutSpec(f"adversary-{task.id}", "adversary", task.id, 0, 0),
        harness_files=folder_files(harness),
        task_json={"id": task.id, "instruction": task.instruction, "workdir": task.workdir},
        task=bundle_task(task),
        script=None,
        model=ModelConfig(),
        price=None,
        timeout_s=60,
        sampling_seed="adversary",
        token="adversary-token-0123456789abcdef",
        sandbox=sandbox,
    )
    result = run_rollout(inputs)
    secret = [data for data in tests.values() if len(data) > 64]
    leaked = tuple(
        shown(rel)
        for rel, data in result.workspace.items()
        if ".stolen" in rel or any(s in data for s in secret)
    )
    evidence = result.verifier
    kept = [result.trajectory, result.reason, result.detail]
    if evidence is not None:
        kept += [evidence.reason, evidence.output, *evidence.reward_files.values()]
    artifacts = "\n".join(kept)
    return Attack(
        task.id, bool(result.official_pass), leaked, result.reason, result.status, artifacts
    )


def attack_layout(
    task: Task, sandbox: Sandbox, cache: Path | None = None, harness: Path = ADVERSARY
) -> Attack:
    """An adversary run in the task's own layout, then the official verifier (Harbor tasks)."""
    with tempfile.TemporaryDirectory(prefix="hp-adversary-") as name:
        tmp = Path(name)
        try:
            layout = open_task(task, tmp / "layout", cache)
        except TaskUnrunnable as exc:  # needs a container, or packages apt cannot provide
            return Attack(task.id, None, reason=str(exc))
        (tmp / "out").mkdir()
        (tmp / "task").mkdir()
        task_json = {"id": task.id, "instruction": task.instruction, "workdir": task.workdir}
        (tmp / "task" / "task.json").write_text(json.dumps(task_json))
        extra = [
            Mount(harness, "/harness"),
            Mount(tmp / "task", "/harnesspro/task"),
            Mount(tmp / "out", "/harnesspro/out", writable=True),
        ]
        env = dict(layout.env)
        env["HARNESSPRO_TASK"] = sandbox.visible_path(extra, "/harnesspro/task/task.json")
        env["HARNESSPRO_OUT"] = sandbox.visible_path(extra, "/harnesspro/out")
        argv = [sys.executable, sandbox.visible_path(extra, "/harness/agent.py")]
        sandbox.run(argv, layout.mounts(extra=extra), env, layout.workdir, 60)
        layout.tidy()
        verdict = run_verifier(task, layout, sandbox)
    artifacts = "\n".join([verdict.reason, verdict.output, *verdict.reward_files.values()])
    return Attack(task.id, verdict.passed, reason=verdict.reason, artifacts=artifacts)
