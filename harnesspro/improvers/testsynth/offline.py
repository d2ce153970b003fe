"""Offline test synthesis: checks voted by the seed's clean rollouts.

One test per task, from its instruction and the seed harness's G rollouts only (official tests
and reference solutions are never read). The instruction says which aspects are checkable
(`facts.read_instruction`: the paths and commands it names, whether it fixes exact text, row
order or file modes); each seed rollout's snapshot gives every aspect a value (`facts`), and
an aspect becomes a check when a strict majority of the *clean* rollouts agree on its value
(those whose trajectory shows no failed command that was never retried; a retry = a later
command with the same arguments), or, where the clean ones split, a strict majority of all
the seed's rollouts (a check one rollout gave is weak: search consensus may overrule it). The
instruction's own
checks (testsynth/stated.py: outputs it asks to write, create or save exist, and the formats,
orders, counts it states) hold whatever the votes. A task with no check
is *unscorable*: it is left out of scoring with the reason, never passed vacuously.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace

from harnesspro.improvers.testsynth.check import SEED, Check
from harnesspro.improvers.testsynth.facts import (
    Reading,
    empty_facts,
    read_instruction,
    snapshot_facts,
)
from harnesspro.improvers.testsynth.formats import Strictness
from harnesspro.improvers.testsynth.stated import stated_checks
from harnesspro.sandbox.contract import Sandbox

FAILURE_MARKERS = ("command not found", "Traceback (most recent call last)", "syntax error")


@dataclass(frozen=True)
class SeedRollout:
    """What the synthesizer may read of one seed rollout."""

    workspace: Mapping[str, bytes]
    trajectory: str


def _arguments(command: str) -> str:
    first_line = command.strip().splitlines()[0] if command.strip() else ""
    return first_line.partition(" ")[2]


def _failed(event: Mapping[str, object]) -> bool:
    return any(marker in str(event.get("output")) for marker in FAILURE_MARKERS)


def _event(line: str) -> dict[str, object] | None:
    """A trajectory line as an event; None for a line cut by a size cap or not an object."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None


def is_clean(trajectory: str) -> bool:
    """No failed command was left without a retry (a later command with the same arguments)."""
    events = [e for e in map(_event, trajectory.splitlines()) if e is not None]
    commands: list[str] = []
    failed: list[int] = []
    for event in events:
        if event.get("type") == "tool_call":
            commands.append(str(event.get("command") or ""))
        elif event.get("type") == "tool_result" and commands and _failed(event):
            failed.append(len(commands) - 1)
    return all(
        any(_arguments(later) == _arguments(commands[i]) for later in commands[i + 1 :])
        for i in failed
    )


VALUE_ASPECTS = (
    "content:", "stdout:", "lines:", "keys:", "field:", "tree:", "names:", "link:", "git:",
)  # fmt: skip
"""Aspects that compare what an output holds, not only that it is there."""

OPPOSITE = {"ascending:": "descending:", "descending:": "ascending:"}
ABSENT = (("kind", "absent"), ("exists", "False"))
"""Votes that a path the instruction asks for is missing: the instruction wins."""


def combine(stated: Sequence[Check], voted: Sequence[Check], reading: Reading) -> tuple[Check, ...]:
    """The instruction's checks, and the voted ones on other aspects (not the opposite order
    of one it states) that do not say an output it asks for is missing or empty (no answer:
    the votes abstain there); sorted by aspect."""
    said = {c.aspect for c in stated}
    said |= {OPPOSITE[k] + a[len(k) :] for a in said for k in OPPOSITE if a.startswith(k)}
    missing = {(f"{k}:{rel}", v) for rel in reading.outputs for k, v in ABSENT}
    missing |= {fact for rel in reading.outputs for fact in empty_facts(rel, reading)}
    kept = [c for c in voted if c.aspect not in said and (c.aspect, c.value) not in missing]
    return tuple(sorted([*stated, *kept], key=lambda c: c.aspect))


@dataclass(frozen=True)
class SynthTest:
    """A frozen offline test: checks over facts of a rollout's final working directory."""

    task_id: str
    reading: Reading
    checks: tuple[Check, ...]
    unscorable: str = ""
    """Why no check could be derived ('' when the task is scorable)."""

    def to_json(self) -> str:
        body = {"mode": "offline", **asdict(self), "checks": [c.as_dict() for c in self.checks]}
        return json.dumps(body, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SynthTest:
        data = json.loads(text)
        reading = dict(data["reading"])
        reading["strict"] = Strictness(**reading["strict"])
        for name in ("paths", "outputs", "free_rows", "commands", "names"):
            reading[name] = tuple(reading[name])
        return cls(
            data["task_id"],
            Reading(**reading),
            tuple(Check(**c) for c in data["checks"]),
            data.get("unscorable", ""),
        )

    @property
    def sees_values(self) -> bool:
        """Whether a check compares an output's value (content, lines, keys, a tree, a
        command's output, git state), not only that outputs exist and have their form."""
        return any(c.aspect.startswith(VALUE_ASPECTS) for c in self.checks)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()


def named_paths(instruction: str, workdir: str) -> list[str]:
    """Working-directory paths the instruction names, relative to the working directory."""
    return list(read_instruction(instruction, workdir).paths)


def _majority(facts: Sequence[Mapping[str, str]], aspect: str) -> Check | None:
    """The check a strict majority of `facts` give `aspect`, if any."""
    if not facts:
        return None
    value, votes = Counter(f.get(aspect) for f in facts).most_common(1)[0]
    if value is None or votes * 2 <= len(facts):
        return None
    return Check(aspect, value, SEED, votes, len(facts))


def vote(
    clean: Sequence[Mapping[str, str]], every: Sequence[Mapping[str, str]]
) -> tuple[Check, ...]:
    """Checks for the aspects on which a strict majority of the clean rollouts agree, or,
    where they split, a strict majority of all the seed's rollouts that no clean rollout
    contradicts. A check one rollout gave (support 1) is weak: search consensus may overrule it
    (testsynth/consensus.py)."""
    aspects = sorted({a for f in every for a in f})
    checks = []
    for aspect in aspects:
        check = _majority(clean, aspect)
        if check is None:
            check = _majority(every, aspect)
            if check is not None and any(f.get(aspect) != check.value for f in clean):
                check = None  # rollouts with a failure left unretried outvote no clean one
        if check is not None:
            checks.append(check)
    return tuple(checks)


def synthesize(
    task_id: str,
    instruction: str,
    workdir: str,
    seed: Sequence[SeedRollout],
    sandbox: Sandbox | None = None,
) -> SynthTest:
    """Build the frozen test of one task from its instruction and the seed's rollouts.

    Commands the instruction names are run with `sandbox` (without one they are not checked).
    """
    reading = read_instruction(instruction, workdir)
    if sandbox is None:
        reading = replace(reading, commands=())
    facts = [snapshot_facts(r.workspace, reading, sandbox) for r in seed]
    clean = [f for f, r in zip(facts, seed, strict=True) if is_clean(r.trajectory)]
    stated = stated_checks(instruction, reading)
    checks = combine(stated, vote(clean, facts), reading)
    reason = ""
    if not seed:
        checks, reason = (), "the seed has no rollouts on this task to derive a check from"
    elif not checks and not any(facts):
        reason = (
            f"the instruction names no path under {workdir} and no complete command, and "
            "no seed rollout left a git repository"
        )
    elif not checks:
        reason = f"the seed's {len(seed)} rollouts agree on no checkable aspect"
    return SynthTest(task_id, reading, checks, reason)


def failures(
    test: SynthTest, snapshot: Mapping[str, bytes], sandbox: Sandbox | None = None
) -> list[Check]:
    """The checks a rollout's final working directory fails."""
    wanted = [c.aspect for c in test.checks]
    facts = snapshot_facts(snapshot, test.reading, sandbox, wanted)
    return [c for c in test.checks if facts.get(c.aspect) != c.value]


def score(test: SynthTest, snapshot: Mapping[str, bytes], sandbox: Sandbox | None = None) -> bool:
    """Whether a rollout's final working directory passes the frozen test (an unscorable
    test passes nothing)."""
    return bool(test.checks) and not test.unscorable and not failures(test, snapshot, sandbox)
