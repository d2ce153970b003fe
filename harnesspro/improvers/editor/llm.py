"""Harness editor, `llm` mode: a coding agent confined to a copy of the candidate's worktree.

The agent (`edit_agent.py`) runs in the sandbox with the copy mounted read-write at
/harness-edit, nothing else writable and no network but the search gateway. Afterwards the
copy's regular files are synced back into the worktree (never `.git`, never symlinks), and
the editor's usual validation decides; `editor.apply_plan` retries once with the validator's
message, and the caller falls back to the catalog edit when both attempts fail.
"""

from __future__ import annotations

import difflib
import json
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harnesspro.core.model_config import ImproverConfig
from harnesspro.core.records import Plan
from harnesspro.execution.rollout import FORWARDER, GATEWAY_PORT
from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.improvers import tolerant
from harnesspro.improvers.account import SearchAccount, SearchUnavailable
from harnesspro.improvers.ask import load_prompt
from harnesspro.improvers.fit import Prompt, PromptTooLarge, prompt_limit
from harnesspro.sandbox import make_sandbox
from harnesspro.sandbox.contract import Limits, Mount, SandboxUnavailable

PROMPT = "editor.v2"
EDIT_AGENT = Path(__file__).with_name("agent.py")
TOLERANT = Path(tolerant.__file__)
RANKED = ("example", "layout", "feedback", "plan")
"""The editor's inputs cut first when the window is small: the catalog example's reference
diff, then the file list and manifest, the feedback, and last the plan's longest texts (the
plan itself is never dropped)."""
OPENING_SHARE = 0.6
"""Share of the window the opening request (system, inputs, tools) may use: the rest is for
the files the agent reads and writes."""
TOOLS_TOKENS = 750
"""The estimated tokens of the agent's tool definitions (agent.TOOLS: about 1,750 characters)."""
SKIPPED = (".git", "__pycache__")
FILE_CAP = 1_000_000  # bytes; larger files the agent wrote are not synced back
LAYOUT = (
    "harness.toml is the manifest (command, immutable paths). In the seed-style layout "
    "harness.yaml holds every knob (prompts, tool_mode, max_steps, command_timeout_s, request, "
    "profiles, format_repair, hooks per hook point), prompts/*.md are the prompt files and "
    "agent/ is the agent loop with its built-in hooks (agent/hooks.py). A hook entry's `use` "
    "names a function of agent/hooks.py, or any module of the harness as `module:function` "
    "(e.g. `agent.my_hooks:notice_on_errors`), called with the same arguments."
)


def harness_files(root: Path) -> dict[str, bytes]:
    """Regular files under `root`, without git metadata, caches, symlinks or huge files."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in SKIPPED for part in rel.parts) or path.is_symlink() or not path.is_file():
            continue
        if path.stat().st_size <= FILE_CAP:
            files[str(rel)] = path.read_bytes()
    return files


def write_files(root: Path, files: dict[str, bytes]) -> None:
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def sync_back(edited: Path, worktree: Path) -> list[str]:
    """Make the worktree's files those of `edited` (git metadata untouched); returns changes."""
    before, after = harness_files(worktree), harness_files(edited)
    changed = []
    for rel in sorted(set(before) - set(after)):
        (worktree / rel).unlink()
        changed.append(f"deleted {rel}")
    for rel, data in after.items():
        if before.get(rel) != data:
            write_files(worktree, {rel: data})
            changed.append(f"wrote {rel}")
    return changed


def unified_diff(before: dict[str, bytes], after: dict[str, bytes]) -> str:
    lines: list[str] = []
    for rel in sorted(set(before) | set(after)):
        old, new = before.get(rel, b""), after.get(rel, b"")
        if old != new:
            lines += difflib.unified_diff(
                old.decode(errors="replace").splitlines(keepends=True),
                new.decode(errors="replace").splitlines(keepends=True),
                f"a/{rel}" if rel in before else "/dev/null",
                f"b/{rel}",
            )
    return "".join(lines)


def reference_change(worktree: Path, mechanism: str) -> str:
    """The catalog's own edit of this worktree for the mechanism, as a unified diff."""
    before = harness_files(worktree)
    with tempfile.TemporaryDirectory(prefix="hp-ref-") as name:
        copy = Path(name)
        write_files(copy, before)
        try:
            CATALOG[mechanism].apply(copy)
        except (OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
            return f"(the catalog edit does not apply to this harness: {exc})"
        return unified_diff(before, harness_files(copy))


def immutable_paths(files: dict[str, bytes]) -> list[str]:
    """The manifest's immutable paths (the manifest itself always)."""
    try:
        spec = tomllib.loads(files.get("harness.toml", b"").decode())["harness"]
        listed = [str(p) for p in spec.get("immutable", [])]
    except (tomllib.TOMLDecodeError, KeyError, TypeError, UnicodeDecodeError):
        listed = []
    return sorted({"harness.toml", *listed})


def job_inputs(worktree: Path, plan: Plan, feedback: str) -> dict[str, Any]:
    files = harness_files(worktree)
    example = None
    if plan.kind == "catalog" and plan.mechanism in CATALOG:
        mechanism = CATALOG[plan.mechanism]
        example = {
            "name": mechanism.name,
            "lever": mechanism.lever,
            "summary": mechanism.summary,
            "params": mechanism.params,
            "reference_change": reference_change(worktree, plan.mechanism),
        }
    return {
        "plan": {
            "directive": plan.directive, "name": plan.mechanism, "kind": plan.kind,
            "levers": list(plan.levers), "change": plan.change, "files": list(plan.files),
            "rationale": plan.rationale, "predicted_pass": plan.predicted_pass,
            "predicted_cost": plan.predicted_cost,
        },
        "example": example,
        "layout": {
            "files": {rel: len(data) for rel, data in files.items()},
            "manifest": files.get("harness.toml", b"").decode(errors="replace"),
            "immutable": immutable_paths(files),
            "notes": LAYOUT,
        },
        "feedback": feedback,
    }  # fmt: skip


@dataclass
class LLMEditor:
    """An `editor.EditFn` running the editing agent; it returns how the attempt went."""

    account: SearchAccount
    improver: ImproverConfig
    backend: str = "bubblewrap"
    memory_mb: int = 4096

    def __call__(self, worktree: Path, plan: Plan, feedback: str) -> str:
        """The agent's edit, or a ValueError when it could not run (the prompt does not fit
        the window, no sandbox, the search budget spent): the edit failed, never a change
        of nothing that the gates would pass on as unproven."""
        attempt = 2 if feedback else 1
        try:
            note = self._edit(worktree, plan, feedback, attempt)
        except (
            SearchUnavailable, SandboxUnavailable, PromptTooLarge, OSError, ValueError, KeyError
        ) as exc:  # fmt: skip
            raise ValueError(f"llm editor ({self.improver.name}) attempt {attempt}: {exc}") from exc
        return f"llm editor ({self.improver.name}) attempt {attempt}: {note}"[:300]

    def _edit(self, worktree: Path, plan: Plan, feedback: str, attempt: int) -> str:
        with tempfile.TemporaryDirectory(prefix="hp-edit-") as name:
            tmp = Path(name)
            for part in ("harness", "job", "out"):
                (tmp / part).mkdir()
            write_files(tmp / "harness", harness_files(worktree))
            data = job_inputs(worktree, plan, feedback)
            limit = prompt_limit(self.improver.context_tokens, self.improver.request)
            opening = None if limit is None else int(limit * OPENING_SHARE) - TOOLS_TOKENS
            prompt = Prompt(load_prompt(PROMPT), "Inputs:", data, RANKED, frozenset({"plan"}))
            fitted = prompt.fit(opening)
            if fitted.cuts:
                self.account.log("editor", {"fitted": fitted.tokens, "cut": list(fitted.cuts)})
            job = {
                "model": self.improver.name,
                "system": fitted.messages[0]["content"],
                "user": fitted.messages[1]["content"],
                "max_steps": self.improver.max_edit_steps,
                "immutable": immutable_paths(harness_files(worktree)),
                "request": self.improver.request,
                "context_limit": limit,
            }
            (tmp / "job" / "job.json").write_text(json.dumps(job))
            with self.account.sandboxed("editor", attempt) as token:
                status = self._run(tmp, token)
            self.account.transcript("editor", attempt, job, _read(tmp / "out" / "transcript.jsonl"))
            changes = sync_back(tmp / "harness", worktree)
            return f"{status}; {', '.join(changes) or 'no files changed'}"

    def _run(self, tmp: Path, token: str) -> str:
        sandbox = make_sandbox(self.backend, Limits(memory_mb=self.memory_mb))
        mounts = [
            Mount(tmp / "harness", "/harness-edit", writable=True),
            Mount(tmp / "job", "/harnesspro/edit"),
            Mount(tmp / "out", "/harnesspro/out", writable=True),
            Mount(FORWARDER, "/opt/harnesspro/forwarder.py"),
            Mount(EDIT_AGENT, "/opt/harnesspro/edit_agent.py"),
            Mount(TOLERANT, "/opt/harnesspro/tolerant.py"),
            Mount(self.account.socket_dir, "/run/harnesspro"),
        ]
        at = sandbox.visible_path
        env = {
            "HARNESSPRO_EDIT_ROOT": at(mounts, "/harness-edit"),
            "HARNESSPRO_EDIT_JOB": at(mounts, "/harnesspro/edit/job.json"),
            "HARNESSPRO_OUT": at(mounts, "/harnesspro/out"),
            "OPENAI_API_KEY": token,
            "HARNESSPRO_TOLERANT": at(mounts, "/opt/harnesspro/tolerant.py"),
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        port = GATEWAY_PORT if at(mounts, "/harness-edit") == "/harness-edit" else 0
        argv = [sys.executable, at(mounts, "/opt/harnesspro/forwarder.py")]
        argv += [at(mounts, "/run/harnesspro/gw.sock"), str(port), "--"]
        argv += [sys.executable, at(mounts, "/opt/harnesspro/edit_agent.py")]
        run = sandbox.run(
            argv, mounts, env, env["HARNESSPRO_EDIT_ROOT"], self.improver.edit_timeout_s
        )
        try:
            result = json.loads((tmp / "out" / "result.json").read_text())
        except (OSError, ValueError):
            last = (run.stderr.strip().splitlines() or [run.reason or "no output"])[-1]
            return f"the agent ended without a result ({last[:200]})"
        return f"{result.get('status')} after {result.get('steps')} steps"


def _read(path: Path) -> list[object]:
    """The agent's transcript; a line torn by a kill is kept as text."""
    lines = path.read_text(errors="replace").splitlines() if path.is_file() else []
    records: list[object] = []
    for line in filter(str.strip, lines):
        try:
            records.append(json.loads(line))
        except ValueError:
            records.append(line)
    return records
