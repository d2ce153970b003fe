"""The messy-reply replay suite: how many of the replies in tests/replies/<role>.jsonl (written
in the styles real models answer in; see tests/replies/write_replies.py) yield something
usable, read exactly as the product reads them.

    python scripts/replay_replies.py [--json]

- planner: `ask.parse` with the planner's schema and screen (coreset csv_report, log_filter,
  backup_rotation; concise_prompt already on the lineage): usable = at least one plan.
- analyzer: the analyzer's schema and screen (tasks csv_report and log_filter, rollouts k00,
  k01, k10, k11): usable = at least one diagnosis, or a valid excerpt request.
- synthesizer: the synthesizer's schema, with its fenced-code salvage: usable = a test whose
  code compiles (`bash -n` for shell, `compile` for pytest).
- editor: the editing agent's `calls_of`: usable = a call of a known tool whose arguments
  have every required parameter.

Prints per role the usable fraction and the replies whose outcome differs from the `expect`
written by hand (plans or diagnoses counted, the test kind, the tool). Exits 1 when a role is
under 90% usable or an outcome differs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.core.records import Trace
from harnesspro.improvers.analyzer import llm as llm_analyzer
from harnesspro.improvers.ask import parse
from harnesspro.improvers.editor import agent
from harnesspro.improvers.planner import llm as llm_planner
from harnesspro.improvers.testsynth.llm import TestAnswer, from_fence

REPLIES = Path(__file__).resolve().parents[1] / "tests" / "replies"
THRESHOLD = 0.9
CORESET = {"csv_report", "log_filter", "backup_rotation"}
TRACES = [
    Trace(key, "c000", task, False, "", 10, 3)
    for key, task in (("k00", "csv_report"), ("k01", "csv_report"), ("k10", "log_filter"),
                      ("k11", "log_filter"))
]  # fmt: skip


def planner(row: dict[str, Any]) -> int:
    check = llm_planner.checker({"concise_prompt"}, CORESET)
    outcome = parse(row["content"], llm_planner.PlannerReply, check)
    return 0 if isinstance(outcome, str) else len(outcome.plans)


def analyzer(row: dict[str, Any]) -> int:
    outcome = parse(row["content"], llm_analyzer.AnalyzerReply, llm_analyzer.checker(TRACES, True))
    if isinstance(outcome, str):
        return 0
    return len(outcome.diagnoses) or int(outcome.excerpt is not None)


def compiles(answer: TestAnswer) -> bool:
    if answer.kind == "pytest":
        try:
            compile(answer.code, "test_synth.py", "exec")
        except SyntaxError:
            return False
        return True
    done = subprocess.run(["bash", "-n"], input=answer.code, text=True, capture_output=True)
    return done.returncode == 0


def synthesizer(row: dict[str, Any]) -> str | None:
    outcome = parse(row["content"], TestAnswer, None, from_fence)
    return None if isinstance(outcome, str) or not compiles(outcome) else outcome.kind


REQUIRED = {t["function"]["name"]: t["function"]["parameters"]["required"] for t in agent.TOOLS}


def editor(row: dict[str, Any]) -> str | None:
    for call in agent.calls_of(row):
        name = call["function"]["name"]
        args = agent.arguments(call["function"].get("arguments"))
        if name in REQUIRED and isinstance(args, dict) and set(REQUIRED[name]) <= set(args):
            return str(name)
    return None


ROLES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "planner": planner, "analyzer": analyzer, "synthesizer": synthesizer, "editor": editor,
}  # fmt: skip


def score(folder: Path = REPLIES) -> dict[str, dict[str, Any]]:
    """Per role: replies, usable replies, their fraction and the rows that differ from
    `expect` (id, style, expected, got)."""
    report = {}
    for role, read in ROLES.items():
        rows = [json.loads(line) for line in (folder / f"{role}.jsonl").read_text().splitlines()]
        got = [read(row) for row in rows]
        usable = sum(1 for g in got if g)
        differ = [
            [row["id"], row["style"], row["expect"], g]
            for row, g in zip(rows, got, strict=True)
            if g != row["expect"] and (g or row["expect"])
        ]
        report[role] = {
            "replies": len(rows), "usable": usable, "fraction": round(usable / len(rows), 4),
            "differ": differ,
        }  # fmt: skip
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    report = score()
    if parser.parse_args().json:
        print(json.dumps(report, indent=1))
    else:
        for role, r in report.items():
            print(f"{role:12} {r['usable']:3}/{r['replies']:3} usable = {r['fraction']:.1%}")
            for row in r["differ"]:
                print(f"  differs: {row}")
    bad = [r for r in report.values() if r["fraction"] < THRESHOLD or r["differ"]]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
