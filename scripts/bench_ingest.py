"""The driver's ingestion rate: how many finished rollouts per second it can record (artifacts
written to the run folder, a ledger row, the progress bar), i.e. the run's record of rollouts
(`LedgerBook.recording`, run/book.py), fed pre-made results so no rollout runs while timing.
The results are copies of one real rollout (seed harness on a built-in task), each under its
own key.

Usage: .venv/bin/python scripts/bench_ingest.py [N]
"""

from __future__ import annotations

import dataclasses
import io
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

from harnesspro.cli.progress import ConsoleProgress
from harnesspro.core.config import RunConfig
from harnesspro.evaluation.engine import rollout_inputs
from harnesspro.evaluation.rollouts import task_payload
from harnesspro.execution.rollout import run_rollout
from harnesspro.run.book import LedgerBook, rollout_settings
from harnesspro.run.context import RunContext
from harnesspro.run.folder import RunFolder

PRICE = {"scripted": {"input": 1.25, "cached_input": 0.125, "output": 10.0}}


def main(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="hp-ingest-") as root:
        config = RunConfig.model_validate({"prices": PRICE, "coreset": {"size": 8}})
        ctx = RunContext.open(config, RunFolder(Path(root) / "run"), Console(quiet=True))
        seed = ctx.seed()
        files = ctx.repo.files(seed.commit)
        settings = rollout_settings(ctx)
        payload = task_payload(ctx.tasks[ctx.splits.coreset[0]], scripted=True)
        batch = [rollout_inputs(settings, seed, files, payload, a, 0) for a in range(n)]
        real = run_rollout(batch[0])
        results = [dataclasses.replace(real, key=inputs.spec.key) for inputs in batch]
        size = len(real.trajectory) + len(real.gateway_log) + sum(map(len, real.workspace.values()))
        console = Console(file=io.StringIO(), force_terminal=True)
        book = LedgerBook(ctx.ledger, ctx.run, ConsoleProgress(console))
        with book.recording("ingest", n, "coreset") as record:
            started = time.perf_counter()
            for inputs, result in zip(batch, results, strict=True):
                record(inputs, result)
            elapsed = time.perf_counter() - started
        assert len(ctx.ledger.rollout_keys()) == n
    print(f"{n} rollouts recorded in {elapsed:.2f} s: {n / elapsed:.0f} rollouts/s")
    print(f"(each: {size:,} bytes of artifacts, {len(real.workspace)} workspace files, status "
          f"{real.status}; per rollout {elapsed / n * 1000:.1f} ms)")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
