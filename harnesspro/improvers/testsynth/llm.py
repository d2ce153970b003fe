"""LLM test synthesis: the improver model writes one executable test per task.

Its inputs are built by `disclosure.synthesizer_inputs` (the instruction and the seed's G
rollouts on that task, nothing else). The answer, a shell script or a pytest file, is run in
the sandbox against every seed rollout's final workspace; a test that does not run (syntax
error, missing interpreter, pytest collection error, timeout) is sent back once with the
error, and after that the caller falls back to the offline checks. Calls are metered in the
search-cost account under the role `synthesizer`.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from harnesspro.improvers.account import SearchAccount
from harnesspro.improvers.ask import ask_json, load_prompt
from harnesspro.improvers.fit import Prompt
from harnesspro.improvers.tolerant import strip_reasoning
from harnesspro.sandbox.contract import Mount, Sandbox, SandboxResult
from harnesspro.sandbox.snapshot import write as write_snapshot

PROMPT = "synthesizer.v1"
TEST_TIMEOUT_S = 60.0
TEST_DIR = "/harnesspro/synth"
FILES = {"shell": "test.sh", "pytest": "test_synth.py"}
RANKED = ("seeds", "instruction")
"""The synthesizer's inputs cut first: the seeds' rollouts (the later ones, then the middles
of files and trajectories); the instruction only when they are already small."""
ISOLATED_PYTHON = {"PYTHONSAFEPATH": "1", "PYTHONNOUSERSITE": "1"}
"""Every Python a test starts (a shell test's `python3 -c`, too) leaves the working
directory and user site folders off sys.path, so a planted `json.py` is never imported."""
RAN = {"shell": (0, 1), "pytest": (0, 1)}
"""Exit codes of a test that ran and gave a verdict; a shell test's other non-zero codes
count as failing verdicts unless they mean the script could not run (2, 126, 127)."""


class TestAnswer(BaseModel):
    """The synthesizer's answer (`kind` as models name it: bash, sh, python, py.test...)."""

    kind: Literal["shell", "pytest"]
    code: str = Field(min_length=1)
    rationale: str = ""

    @model_validator(mode="before")
    @classmethod
    def _kind(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("code"), str):
            return {**data, "kind": test_kind(str(data.get("kind") or ""), data["code"])}
        return data


def test_kind(named: str, code: str) -> str:
    """shell or pytest from what the model called it, else from the code itself."""
    named = named.strip().lower()
    if named in ("shell", "pytest"):
        return named
    if any(word in named for word in ("bash", "sh", "shell", "script")) and "py" not in named:
        return "shell"
    if "py" in named or re.search(r"^\s*def test_", code, re.M):
        return "pytest"
    return "shell" if named == "" else named


FENCED = re.compile(r"```([A-Za-z]*)[ \t]*\n(.*?)```", re.DOTALL)


def from_fence(text: str) -> TestAnswer | None:
    """A test written as a fenced code block instead of the JSON answer (the last bash, sh or
    python block), or None."""
    for language, code in reversed(FENCED.findall(strip_reasoning(text))):
        if language.lower() in ("bash", "sh", "shell", "python", "py") and code.strip():
            kind = test_kind(language, code)
            if kind == "pytest" and "def test_" not in code:
                continue
            return TestAnswer(kind=kind, code=code)
    return None


@dataclass(frozen=True)
class ExecTest:
    """A frozen executable test written by the llm synthesizer."""

    task_id: str
    workdir: str
    kind: str
    code: str
    rationale: str = ""
    seed_verdicts: tuple[bool, ...] = ()
    """Its verdicts on the seed's rollouts when it was frozen (for the report)."""
    unscorable: str = ""

    def to_json(self) -> str:
        return json.dumps({"mode": "llm", **asdict(self)}, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ExecTest:
        data = json.loads(text)
        data.pop("mode", None)
        data["seed_verdicts"] = tuple(data.get("seed_verdicts", ()))
        return cls(**data)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()


def run_test(test: ExecTest, snapshot: Mapping[str, bytes], sandbox: Sandbox) -> SandboxResult:
    """Run the test in the sandbox on a writable copy of a workspace snapshot; the test file
    sits read-only outside the working directory, and the interpreter runs isolated (`-I`;
    `ISOLATED_PYTHON` for the interpreters a shell test starts) so nothing in the working
    directory shadows pytest or the standard library."""
    with tempfile.TemporaryDirectory(prefix="hp-synth-") as name:
        work = write_snapshot(Path(name) / "work", snapshot)
        tests = Path(name) / "tests"
        tests.mkdir()
        (tests / FILES[test.kind]).write_text(test.code)
        mounts = [Mount(work, test.workdir, writable=True), Mount(tests, TEST_DIR)]
        path = sandbox.visible_path(mounts, f"{TEST_DIR}/{FILES[test.kind]}")
        if test.kind == "shell":
            argv = ["bash", path]
        else:
            rootdir = sandbox.visible_path(mounts, TEST_DIR)
            pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", f"--rootdir={rootdir}"]
            argv = [sys.executable, "-I", *pytest, path]
        cwd = sandbox.visible_path(mounts, test.workdir)
        return sandbox.run(argv, mounts, ISOLATED_PYTHON, cwd, TEST_TIMEOUT_S)


def did_not_run(test: ExecTest, result: SandboxResult) -> str:
    """Why a result is no verdict ('' when the test ran and decided)."""
    tail = (result.stderr or result.stdout).strip()[-600:]
    if result.exit_code is None:
        return f"it did not finish: {result.reason}"
    if test.kind == "pytest" and result.exit_code not in RAN["pytest"]:
        return f"pytest exited with status {result.exit_code} (no verdict): {tail}"
    if test.kind == "shell" and (result.exit_code in (2, 126, 127) or "syntax error" in tail):
        return f"bash exited with status {result.exit_code}: {tail}"
    return ""


def try_on_seeds(
    test: ExecTest, seeds: Sequence[Mapping[str, bytes]], sandbox: Sandbox
) -> tuple[str, tuple[bool, ...]]:
    """('', verdicts) when the test runs on every seed workspace, else (the problem, ())."""
    verdicts = []
    for n, snapshot in enumerate(seeds, 1):
        result = run_test(test, snapshot, sandbox)
        problem = did_not_run(test, result)
        if problem:
            return f"on the seed's rollout {n}: {problem}", ()
        verdicts.append(result.exit_code == 0)
    return "", tuple(verdicts)


def passes(test: ExecTest, snapshot: Mapping[str, bytes], sandbox: Sandbox) -> bool:
    """Whether a rollout's final workspace passes the frozen test (exit 0)."""
    return run_test(test, snapshot, sandbox).exit_code == 0


def synthesize_llm(
    inputs: Any,
    seeds: Sequence[Mapping[str, bytes]],
    account: SearchAccount,
    sandbox: Sandbox,
) -> ExecTest | str:
    """The frozen test of one task written by the model, or the reason there is none.

    `inputs` is a `inputs.SynthesizerInputs`; `seeds` are the same rollouts' snapshots.
    """
    data = asdict(inputs)
    prompt = Prompt(load_prompt(PROMPT), "Inputs", data, RANKED, frozenset(data))
    problem = ""
    for attempt in (1, 2):
        answer = ask_json(account, "synthesizer", prompt, TestAnswer, salvage=from_fence)
        if answer.value is None:
            return answer.reason
        value = answer.value
        test = ExecTest(inputs.task_id, inputs.workdir, value.kind, value.code, value.rationale)
        problem, verdicts = try_on_seeds(test, seeds, sandbox)
        if not problem:
            return ExecTest(**{**asdict(test), "seed_verdicts": verdicts})
        if attempt == 1:
            retry = {
                "role": "user",
                "content": f"Your test did not run: {problem}. Answer again with only the "
                "JSON object, with a test that runs.",
            }
            follow_up = (*prompt.follow_up, {"role": "assistant", "content": answer.content}, retry)
            prompt = replace(prompt, follow_up=follow_up)
    return f"the test did not run after one retry: {problem}"[:400]
