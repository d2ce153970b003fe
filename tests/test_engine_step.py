"""The engine as a step over typed records: which rollouts a request still needs (finished
keys skipped, whole candidates within the cap, in order), cached results recorded through the
book (no Ray), and the run's ledger book behind the `RolloutBook` protocol."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from harnesspro.core.config import RunConfig
from harnesspro.core.ledger import Ledger
from harnesspro.core.records import Candidate, RolloutResult, RolloutSpec, Usage
from harnesspro.evaluation.engine import (
    Evaluated,
    Record,
    Request,
    RolloutBook,
    plan_rollouts,
    rollout_inputs,
    rollout_key,
    run_rollouts,
)
from harnesspro.evaluation.rollouts import task_payload
from harnesspro.execution.fakes.behaviour import DEFAULT_PROFILE
from harnesspro.execution.rollout import RolloutInputs
from harnesspro.execution.rollout_cache import RolloutCache
from harnesspro.execution.settings import RolloutSettings
from harnesspro.run.book import LedgerBook, rollout_settings
from harnesspro.run.folder import RunFolder
from tests.conftest import builtin_task


def settings_for(**evaluation: object) -> RolloutSettings:
    config = RunConfig.model_validate({"evaluation": evaluation})
    run: Any = SimpleNamespace(
        config=config, price=None, behaviour=DEFAULT_PROFILE, task_hashes=None, model_url=None
    )
    return rollout_settings(run)


def candidate(cid: str) -> Candidate:
    return Candidate(cid, f"commit-{cid}", f"tree-{cid}", None, None, None, 1)


def result(key: str) -> RolloutResult:
    return RolloutResult(key, "ok", Usage(output=5), 0.01, 1.0, 2, None, "", "", {})


class MemoryBook:
    """A `RolloutBook` in memory."""

    def __init__(self, finished: set[str] | None = None) -> None:
        self.finished = finished or set()
        self.recorded: list[tuple[str, str, int, str]] = []
        self.batches: list[tuple[str, int, str]] = []
        self.stopped: list[str] = []

    def finished_keys(self) -> set[str]:
        return set(self.finished)

    @contextmanager
    def recording(self, label: str, total: int, split: str) -> Iterator[Record]:
        self.batches.append((label, total, split))

        def record(inputs: RolloutInputs, done: RolloutResult) -> None:
            spec = inputs.spec
            assert done.key == spec.key
            self.recorded.append((spec.candidate_id, spec.task_id, spec.attempt, split))

        yield record

    def record_discarded(
        self, inputs: RolloutInputs, result: RolloutResult, split: str, tried: int
    ) -> None:
        raise AssertionError("nothing runs here")

    def search_dollars(self) -> float:
        return 0.0

    def heldout_dollars(self) -> float:
        return 0.0

    def mark_stopped(self, why: str) -> None:
        self.stopped.append(why)


def test_a_plan_skips_finished_rollouts_and_keeps_whole_candidates_within_the_cap() -> None:
    settings = settings_for()
    c1, c2, c3 = candidate("c001"), candidate("c002"), candidate("c003")
    book: RolloutBook = MemoryBook({rollout_key(settings, c1, "a", 0)})
    request = Request((c1, c2, c3), ("a", "b"), (0, 1), epoch=1, cap=5)
    batch = plan_rollouts(settings, request, book)
    # c001 has 3 rollouts left and fits; c002's 4 would not, and nothing after it is taken.
    assert batch.todo == ((c1, "a", 1), (c1, "b", 0), (c1, "b", 1))
    assert batch.skipped == ("c002", "c003")
    assert batch.candidates() == [c1] and batch.task_ids() == ["a", "b"]
    everything = plan_rollouts(settings, Request((c2, c3), ("a",), (0,), epoch=1), book)
    assert everything.todo == ((c2, "a", 0), (c3, "a", 0)) and everything.skipped == ()


def test_nothing_to_run_touches_no_book_record() -> None:
    settings, book = settings_for(), MemoryBook()
    c1 = candidate("c001")
    book.finished = {rollout_key(settings, c1, "a", a) for a in (0, 1)}
    batch = plan_rollouts(settings, Request((c1,), ("a",), (0, 1), epoch=2), book)
    assert run_rollouts(settings, batch, {}, {}, book) == Evaluated(0)
    assert book.batches == [] and book.stopped == []


def test_cached_rollouts_are_recorded_through_the_book_in_order(tmp_path: Path) -> None:
    settings = settings_for(rollout_cache=str(tmp_path / "cache.sqlite"))
    c1, c2 = candidate("c001"), candidate("c002")
    task = builtin_task("fix_word_wrap")
    payloads = {task.id: task_payload(task, scripted=True)}
    files = {c.id: {"harness.yaml": c.id.encode()} for c in (c1, c2)}
    cache = RolloutCache(tmp_path / "cache.sqlite")
    for c in (c1, c2):
        for attempt in (0, 1):
            inputs = rollout_inputs(settings, c, files[c.id], payloads[task.id], attempt, 3)
            cache.put(inputs, result(inputs.spec.key))
    cache.close()
    book = MemoryBook()
    batch = plan_rollouts(settings, Request((c1, c2), (task.id,), (0, 1), epoch=3), book)
    assert run_rollouts(settings, batch, files, payloads, book) == Evaluated(4)
    assert book.batches == [("epoch 3 coreset: rollouts of c001, c002", 4, "coreset")]
    assert book.recorded == [(c, task.id, a, "coreset") for c in ("c001", "c002") for a in (0, 1)]


def test_the_ledger_book_records_artifacts_rows_and_progress(tmp_path: Path) -> None:
    ticks: list[str] = []

    class Ticks:
        @contextmanager
        def track(self, label: str, total: int) -> Iterator[Callable[[], None]]:
            yield lambda: ticks.append(label)

    ledger = Ledger(tmp_path / "ledger.sqlite")
    book = LedgerBook(ledger, RunFolder(tmp_path / "run"), Ticks())
    spec = RolloutSpec("k1", "c000", "t1", 0, 0)
    inputs: Any = SimpleNamespace(spec=spec)
    with book.recording("batch", 1, "validation") as record:
        record(inputs, result("k1"))
    assert book.finished_keys() == {"k1"} and ticks == ["batch"]
    assert (tmp_path / "run" / "rollouts" / "k1" / "trajectory.jsonl").exists()
    assert ledger.rollouts()["split"].tolist() == ["validation"]
    book.mark_stopped("first reason")
    book.mark_stopped("second reason")
    assert ledger.meta("stopped") == "first reason"


def _sampling_seed(**config: object) -> str:
    run: Any = SimpleNamespace(
        config=RunConfig.model_validate(config),
        price=None,
        behaviour=DEFAULT_PROFILE,
        task_hashes=None,
        model_url=None,
    )
    task = builtin_task("fix_word_wrap")
    payload = task_payload(task, scripted=True)
    return rollout_inputs(rollout_settings(run), candidate("c001"), {}, payload, 1, 0).sampling_seed


def test_sampling_seed_fixes_the_model_s_draws_whatever_the_run_s_seed() -> None:
    # without it, the run's seed sets the draws; with it, runs of other seeds meet one draw
    assert _sampling_seed(seed=1) != _sampling_seed(seed=2)
    assert _sampling_seed(seed=1, sampling_seed=7) == _sampling_seed(seed=2, sampling_seed=7)
    assert _sampling_seed(seed=1, sampling_seed=7) == _sampling_seed(seed=7)
    assert _sampling_seed(seed=1, sampling_seed=7) != _sampling_seed(seed=1, sampling_seed=8)


def test_sampling_seed_for_a_real_model_is_an_error() -> None:
    real = {"upstream": "openai", "base_url": "http://localhost:1/v1", "name": "m"}
    with pytest.raises(ValueError, match="sampling_seed"):
        RunConfig.model_validate({"sampling_seed": 3, "model": real, "prices": {}})
