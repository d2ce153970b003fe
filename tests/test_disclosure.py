"""Disclosure is enforced in code: canaries planted in a test-split trajectory, a validation
trajectory, official tests, reference solutions and the frozen synthesized tests never reach
an improver's inputs, prompts or the search gateway's log, in `llm` mode end to end."""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from rich.console import Console

import harnesspro
from harnesspro.core.config import load_config
from harnesspro.core.records import Plan, RolloutResult, RolloutSpec, Usage
from harnesspro.evolution.improve import improve, search_account
from harnesspro.execution.gateway.upstream import ReplayUpstream
from harnesspro.improvers.editor.llm import LLMEditor
from harnesspro.improvers.roles.scripted import ScriptedImprover
from harnesspro.improvers.testsynth.check import INSTRUCTION, SEARCH
from harnesspro.improvers.testsynth.facts import Reading
from harnesspro.improvers.testsynth.offline import Check, SynthTest
from harnesspro.run.context import RunContext
from harnesspro.run.disclosure import improver_inputs, synthesizer_inputs
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.loader import builtin_suite_dir
from tests.conftest import COMMANDS, tiny_config, tool_call, trajectory

CANARIES = {
    "test": "CANARY-TEST-SPLIT-TRAJECTORY",
    "validation": "CANARY-VALIDATION-TRAJECTORY",
    "official": "CANARY-OFFICIAL-TESTS",
    "solution": "CANARY-REFERENCE-SOLUTION",
    "synthesized": "CANARY-SYNTHESIZED-TEST",
}
CONTROL = "CONTROL-CORESET-TRAJECTORY"  # a train trace: improvers must see this one
TASKS = 8


class Recording(ScriptedImprover):
    """The offline improver model, keeping every request it was sent."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[dict[str, Any]] = []

    def complete(self, request: Mapping[str, Any], sampling_seed: str) -> dict[str, Any]:
        self.requests.append(json.loads(json.dumps(request)))
        return super().complete(request, sampling_seed)


def planted_suite(folder: Path) -> Path:
    """Built-in tasks copied, with canaries in their official tests and reference solutions
    (as trailing comment blocks: the scripted policy's steps stay as they were)."""
    suite = folder / "suite"
    for source in sorted(builtin_suite_dir().iterdir())[:TASKS]:
        task = suite / source.name
        shutil.copytree(source, task)
        for rel, canary in (("tests/test.sh", "official"), ("solution/solve.sh", "solution")):
            path = task / rel
            path.write_text(path.read_text().rstrip("\n") + f"\n\n# {CANARIES[canary]}\n")
    return suite


def record(ctx: RunContext, key: str, task_id: str, split: str, text: str, attempt: int) -> None:
    usage = Usage(uncached_input=900, cached_input=300, output=60)
    result = RolloutResult(key, "ok", usage, 0.01, 1.0, 5, True, text, "", {})
    artifacts = ctx.run.save_rollout(result)
    ctx.ledger.record_rollout(
        RolloutSpec(key, "c000", task_id, attempt, 0), result, artifacts, split
    )
    ctx.ledger.set_passes({key: attempt == 0})


def planted_run(folder: Path) -> RunContext:
    evolution = {"epochs": 1, "rollouts_per_task": 2, "improver": "llm"}
    config = tiny_config(folder, tasks={"suite": str(planted_suite(folder))}, evolution=evolution)
    ctx = RunContext.open(load_config(config), RunFolder(folder / "run"), Console(quiet=True))
    ctx.seed()
    splits = ctx.splits
    assert splits.test and splits.validation and len(splits.coreset) == 3
    for n, task_id in enumerate(splits.coreset):
        for attempt in (0, 1):
            control = f"cat /workspace/{CONTROL}.txt"  # repeated: the evidence quotes it
            text = trajectory([control, control, *COMMANDS], output="y" * (1600 * (n == 0)))
            record(ctx, f"core{n}{attempt}", task_id, "coreset", text, attempt)
        planted = f"{CANARIES['synthesized']}/out.txt"
        test = SynthTest(
            task_id, Reading("/workspace", (planted,)), (Check(f"exists:{planted}", "True"),)
        )
        path = ctx.run.synth_test(task_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(test.to_json())
        ctx.ledger.freeze_test(task_id, test.sha256, str(path.relative_to(ctx.run.root)))
        # its refinement, with a check of each new kind carrying the canary
        said = Check(f"lines:{planted}", "3", INSTRUCTION, source=CANARIES["synthesized"])
        agreed = Check(f"content:{planted}", CANARIES["synthesized"], SEARCH, 5, 6)
        refined = replace(test, checks=(*test.checks, said, agreed))
        path = ctx.run.refined_test(task_id, refined.sha256)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(refined.to_json())
        ctx.ledger.refine_test(task_id, refined.sha256, str(path.relative_to(ctx.run.root)))
    for split in ("validation", "test"):
        task_id = getattr(splits, split)[0]
        for attempt in (0, 1):
            text = trajectory([f"echo {CANARIES[split]}", *COMMANDS], output=CANARIES[split])
            record(ctx, f"{split}{attempt}", task_id, split, text, attempt)
    return ctx


def texts_under(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(root.rglob("*")) if p.is_file())


def test_no_canary_reaches_any_improver(tmp_path: Path) -> None:
    ctx = planted_run(tmp_path)
    # The canaries are really there, where an improver could have found them.
    planted = texts_under(ctx.run.root) + texts_under(tmp_path / "suite")
    assert all(canary in planted for canary in CANARIES.values())

    upstream = Recording()
    children = improve(ctx, 1, ["c000"], upstream)
    assert len(children) == 3 and len(upstream.requests) >= 5

    inputs = improver_inputs(ctx, 1, ["c000"])
    assert "c000" in inputs.validation  # the validation aggregate is disclosed...
    seen = {
        "inputs": repr(inputs) + json.dumps([asdict(t) for t in inputs.traces]),
        "prompts": json.dumps(upstream.requests),
        "search folder (gateway log, transcripts)": texts_under(ctx.run.root / "search"),
        "search_calls": ctx.ledger.search_calls().to_csv(),
        "diagnoses and plans": ctx.ledger.diagnoses().to_csv() + ctx.ledger.plans().to_csv(),
        # the llm synthesizer sees one task's seed rollouts: none of the canaries either
        "synthesizer inputs": repr(synthesizer_inputs(ctx, ctx.splits.coreset[0])),
    }
    for where, text in seen.items():
        for name, canary in CANARIES.items():
            assert canary not in text, f"the {name} canary reached {where}"
    assert CONTROL in seen["prompts"] and CONTROL in seen["inputs"]  # ...and train traces are
    assert (ctx.run.root / "search" / "epoch-1" / "gateway.jsonl").stat().st_size > 0


def test_the_editing_agent_cannot_find_the_canaries(tmp_path: Path) -> None:
    ctx = planted_run(tmp_path)
    package = Path(harnesspro.__file__).resolve().parent  # holds the built-in tasks
    # The canaries' exact values: a bare "CANARY" also occurs inside compiled libraries.
    patterns = " ".join(f"-e {value}" for value in CANARIES.values())
    search = f"grep -rlsF {patterns} /tmp /run /opt /harnesspro /harness-edit; ls {package}"
    upstream = ReplayUpstream([tool_call("bash", 0, command=search)])
    plan = Plan("c000", "cost-first", "concise_prompt", "shorter", 0.0, -0.3)
    worktree = ctx.repo.start_candidate("c001", ctx.candidates()["c000"].commit)
    with search_account(ctx, 1, upstream) as account:
        LLMEditor(account, account.improver)(worktree, plan, "")
    (result,) = [m["content"] for m in upstream.requests[-1]["messages"] if m["role"] == "tool"]
    # Nothing but the harness copy is visible: no run folder, no task suite, no package.
    missing = f"ls: cannot access '{package}': No such file or directory\n"
    assert result in (missing, "(no output, exit code 0)"), result  # absent, or hidden


def test_only_coreset_rollouts_become_traces(tmp_path: Path) -> None:
    ctx = planted_run(tmp_path)
    inputs = improver_inputs(ctx, 1, ["c000"])
    assert sorted(t.key for t in inputs.traces) == [f"core{n}{a}" for n in range(3) for a in (0, 1)]
    assert set(inputs.instructions) == set(ctx.splits.coreset)
