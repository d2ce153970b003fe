"""How large the improver roles' prompts were in a run, as the model's server counted them.

    python scripts/search_prompt_sizes.py RUN_FOLDER [--context 4096] [--gguf MODEL.gguf]

Reads the run's ledger (`search_calls`: every analyzer, planner, editor, synthesizer and
probe call with the input tokens its upstream reported) and the fitting log
(`search/epoch-*/calls.jsonl`: what each role cut to fit `improver_model.context_tokens`).
Prints per role: calls, answered calls, the largest prompt in tokens (uncached + cached
input), the HTTP statuses, the cuts, and the calls refused for length or never sent because
the prompt could not fit. With `--gguf`, also each role's largest whole request (system
prompt, tool definitions and 4 tokens of framing per message included: some chat templates,
llama-cpp-python's gemma one, drop the system message, so the server's count leaves it out)
counted with that model's tokenizer, beside harnesspro's estimate of it. Exits 1 when a
prompt is over `--context` or a call failed for size.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harnesspro.improvers.editor.agent import TOOLS
from harnesspro.improvers.tolerant import message_tokens

SIZE = re.compile(r"cannot fit|context length|context window|exceed", re.I)


def sizes(run: Path) -> dict[str, dict[str, object]]:
    ledger = sqlite3.connect(f"file:{run / 'ledger.sqlite'}?mode=ro", uri=True)
    rows = ledger.execute(
        "select role, status, uncached_input, cached_input, note from search_calls"
    ).fetchall()
    report: dict[str, dict[str, object]] = defaultdict(dict)
    for role in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == role]
        prompts = [(r[2] or 0) + (r[3] or 0) for r in mine if r[1] == 200]
        report[role] = {
            "calls": len(mine),
            "answered": len(prompts),
            "largest_prompt": max(prompts, default=0),
            "statuses": dict(Counter(r[1] for r in mine)),
            "size_failures": sum(1 for r in mine if SIZE.search(r[4] or "")),
        }
    for log in sorted(run.glob("search/epoch-*/calls.jsonl")):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if "cut" in event:
                cuts = report[event["role"]].setdefault("cuts", [])
                assert isinstance(cuts, list)
                cuts.append(event["cut"])
    return dict(report)


def requests(run: Path) -> list[tuple[str, list[dict[str, Any]], Any]]:
    """(role, messages, tools) of every request the fitting log recorded (an editor's is its
    opening request)."""
    found = []
    for log in sorted(run.glob("search/epoch-*/calls.jsonl")):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if "messages" not in event:
                continue
            if event["role"] == "editor":
                job = event["messages"]
                opening = [
                    {"role": "system", "content": job["system"]},
                    {"role": "user", "content": job["user"]},
                ]
                found.append(("editor", opening, TOOLS))
            else:
                found.append((event["role"], event["messages"], None))
    return found


def tokenizer_counts(run: Path, count: Callable[[str], int]) -> dict[str, tuple[int, int]]:
    """Per role: the largest whole request by `count`, and harnesspro's estimate of it."""
    largest: dict[str, tuple[int, int]] = {}
    for role, messages, tools in requests(run):
        real = sum(count(str(m.get("content") or "")) + 4 for m in messages)
        real += count(json.dumps(tools)) if tools else 0
        if real > largest.get(role, (0, 0))[0]:
            largest[role] = (real, message_tokens(messages, tools))
    return largest


def gguf_counter(path: Path) -> Callable[[str], int]:
    from llama_cpp import Llama  # optional: the dev extras install it

    model = Llama(str(path), vocab_only=True, verbose=False)
    return lambda text: len(model.tokenize(text.encode(), add_bos=False, special=False))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--context", type=int, default=4096)
    parser.add_argument("--gguf", type=Path, help="count whole requests with this tokenizer")
    args = parser.parse_args()
    report = sizes(args.run)
    bad = False
    for role, row in report.items():
        print(f"{role}: {json.dumps(row)}")
        largest = row.get("largest_prompt", 0)
        bad |= isinstance(largest, int) and largest > args.context
        bad |= bool(row.get("size_failures"))
    if args.gguf:
        for role, (real, estimate) in tokenizer_counts(args.run, gguf_counter(args.gguf)).items():
            print(
                f"{role}: largest whole request {real} tokens by {args.gguf.name}, "
                f"estimated {estimate}"
            )
            bad |= real > args.context
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
