"""A provider that reports no usage (llama-cpp-python's server streams none): token counts stay
unknown (None, SQL NULL, null, "unknown") from the gateway to the reports, never 0 or NaN, and
the per-rollout token budget still stops a runaway rollout by an estimate."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from openai import DefaultHttpxClient, OpenAI
from plotly.offline import get_plotlyjs

from harnesspro.cli import main
from harnesspro.core.cost_axis import axis_of, value_on
from harnesspro.core.ledger import Ledger, rows_of
from harnesspro.core.metrics import candidate_scores
from harnesspro.core.model_config import ModelConfig
from harnesspro.core.records import Candidate, Usage, total_usage
from harnesspro.core.rollout_budget import RolloutBudget
from harnesspro.execution.fakes.provider import fake_provider
from harnesspro.execution.gateway.server import Gateway
from harnesspro.execution.rollout import run_rollout
from harnesspro.reports import figures, frames
from harnesspro.reports.costs import epoch_costs, write_csv
from harnesspro.reports.pareto_plot import CALL_AXIS, front_frame, x_title
from harnesspro.reports.rundata import load_run
from harnesspro.tasks.loader import folder_files
from tests.conftest import (
    FAKE_PRICE,
    built_once,
    builtin_task,
    gateway_to,
    inputs_for,
    tiny_config,
)

TOKEN = "rollout-token-abcdef"
BODY = {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
# Hand-worked estimate of one such call (the fake provider streams "hel" + "lo"):
#   tools "[]" = 2 chars, messages '[{"role": "user", "content": "hi"}]' = 35 chars,
#   reply '{"role": "assistant", "content": "hello"}' = 41 chars: 78 chars / 4 -> 20 tokens.
ESTIMATE = 20
PARTS = ("uncached_input", "cached_input", "cache_write", "output", "reasoning")


def client(gw: Gateway) -> OpenAI:
    transport = type(DefaultHttpxClient()._transport)(uds=str(gw.socket_path))
    return OpenAI(
        base_url="http://gateway/v1",
        api_key=TOKEN,
        http_client=DefaultHttpxClient(transport=transport),
        max_retries=0,
    )


def test_a_stream_without_usage_keeps_the_token_counts_unknown() -> None:
    with fake_provider([("stream_no_usage",)]) as provider, gateway_to(provider.base_url) as gw:
        chunks = list(client(gw).chat.completions.create(stream=True, **BODY))  # type: ignore[call-overload]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "hello" and provider.unmetered == 1
    (call,) = gw.calls
    assert call.usage is None and call.cost is None
    logged = json.loads(gw.log[0])
    assert {part: logged[part] for part in PARTS} == dict.fromkeys(PARTS)  # null, not 0
    assert gw.accounts[TOKEN].spent.tokens == ESTIMATE  # the budget counts the estimate


def test_an_answer_without_usage_keeps_the_token_counts_unknown() -> None:
    with fake_provider([("no_usage",), ("ok",)]) as provider, gateway_to(provider.base_url) as gw:
        assert gw.chat(TOKEN, dict(BODY))[0] == 200
        assert gw.chat(TOKEN, dict(BODY))[0] == 200
    unknown, known = gw.calls
    assert unknown.usage is None and unknown.cost is None
    assert known.usage is not None and known.usage.total == 1230
    # One call unknown makes the rollout's total unknown (as for dollars), not a lower bound.
    assert total_usage([known.usage, unknown.usage]) is None
    assert total_usage([known.usage, Usage(output=5)]) == known.usage + Usage(output=5)
    # Hand-worked: 2 + 35 chars of request, reply '{"role": "assistant", "content": "hi"}'
    # = 38 chars: 75 / 4 -> 19 estimated tokens, plus the 1230 reported.
    assert gw.accounts[TOKEN].spent.tokens == 19 + 1230


def test_the_token_budget_stops_calls_that_report_no_usage() -> None:
    budget = RolloutBudget(max_tokens=50)  # 20 estimated tokens a call: the third crosses it
    behaviours = [("stream_no_usage",)] * 10
    with (
        fake_provider(behaviours) as provider,
        gateway_to(provider.base_url, budget=budget) as gw,
    ):
        statuses = []
        for _ in range(5):
            status, parts = gw.chat_stream(TOKEN, {**BODY, "stream": True})
            b"".join(parts)
            statuses.append(status)
    assert statuses == [200, 200, 200, 402, 402]
    assert len(provider.requests) == 3  # refused calls never reach the provider


RUNAWAY = """
import json, os, urllib.request, urllib.error
url = os.environ["OPENAI_BASE_URL"].rstrip("/") + "/chat/completions"
headers = {"Content-Type": "application/json",
           "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]}
body = {"model": os.environ["HARNESSPRO_MODEL"], "stream": True,
        "messages": [{"role": "user", "content": "hi"}]}
calls = 0
for _ in range(1000):  # a runaway loop: only the gateway's budget stops it
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
        calls += 1
    except urllib.error.HTTPError as exc:
        break
out = os.environ["HARNESSPRO_OUT"]
open(out + "/result.json", "w").write(json.dumps({"status": "submitted", "calls": calls}))
"""


def test_a_runaway_rollout_without_usage_is_stopped_and_recorded_as_unknown(
    tmp_path: Path,
) -> None:
    harness = tmp_path / "runaway"
    harness.mkdir()
    (harness / "harness.toml").write_text(
        '[harness]\ncommand = ["{python}", "/harness/runaway.py"]\n'
    )
    (harness / "runaway.py").write_text(RUNAWAY)
    with fake_provider([("stream_no_usage",)] * 50) as provider:
        inputs = dataclasses.replace(
            inputs_for(builtin_task("sales_by_region"), 0, folder_files(harness)),
            script=None,
            model=ModelConfig(name="fake-model", upstream="openai", base_url=provider.base_url),
            price=FAKE_PRICE,
            budget=RolloutBudget(max_tokens=50),
        )
        result = run_rollout(inputs)
    assert result.status == "budget_exhausted", result.reason + result.detail
    assert len(provider.requests) == 3  # 3 x 20 estimated tokens crossed the cap of 50
    assert result.n_calls == 4  # three answered, one refused
    assert result.usage is None and result.cost is None
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.record_rollout(inputs.spec, result, "", "coreset")
    ledger.close()
    with sqlite3.connect(tmp_path / "ledger.sqlite") as db:
        row = db.execute(f"SELECT {', '.join(PARTS)}, cost, n_calls FROM rollouts").fetchone()
    assert row == (None,) * 6 + (4,)  # SQL NULL, not 0


def _rollouts(tokens: dict[str, list[int | None]]) -> pd.DataFrame:
    """Ledger-shaped rollouts: each candidate's rollouts with `output` tokens (None = unknown),
    4 model calls each for c001, 2 for the others, no price."""
    rows = []
    for cid, outputs in tokens.items():
        for i, output in enumerate(outputs):
            known = output is not None
            rows.append(
                {
                    "key": f"{cid}-{i}",
                    "candidate_id": cid,
                    "task_id": f"t{i}",
                    "attempt": 0,
                    "epoch": 0,
                    "status": "ok",
                    "pass": float(i % 2),
                    "split": "coreset",
                    "uncached_input": 100 if known else None,
                    "cached_input": 0 if known else None,
                    "cache_write": 0 if known else None,
                    "output": output,
                    "reasoning": 0 if known else None,
                    "cost": None,
                    "n_calls": 4 if cid == "c001" else 2,
                }  # fmt: skip
            )
    return pd.DataFrame(rows)


def test_unknown_tokens_make_the_candidate_unknown_and_the_axis_model_calls() -> None:
    frame = _rollouts({"c000": [10, None], "c001": [None, None]})
    scores = candidate_scores(rows_of(frame), ["t0", "t1"])
    assert all(math.isnan(s.tokens_per_task) for s in scores.values())  # not a partial mean
    assert axis_of(scores) == "calls"
    assert [value_on(scores[c], "calls") for c in ("c000", "c001")] == [2.0, 4.0]
    candidates = {c: Candidate(c, "sha", f"tree-{c}", None, None, None, 0) for c in scores}
    front = front_frame(scores, candidates, {"lite": "c000"}, "c000")
    assert list(front["x"]) == [2.0, 4.0] and x_title(front) == CALL_AXIS
    known = candidate_scores(rows_of(_rollouts({"c000": [10, 30]})), ["t0", "t1"])
    # Hand-worked: (100 + 10 + 100 + 30) / 2 rollouts = 120 tokens per task.
    assert known["c000"].tokens_per_task == 120.0 and axis_of(known) == "tokens"


def test_cost_reports_write_unknown_token_counts_as_unknown(tmp_path: Path) -> None:
    frame = _rollouts({"c000": [10, 30], "c001": [None, 5]})
    table = epoch_costs(frame, 0, "c000")
    path = write_csv(table, tmp_path / "costs.csv")
    written = pd.read_csv(path, dtype=str).set_index("scope")
    seed = written.loc["seed baseline"]
    assert (seed["output"], seed["tokens"], seed["tokens_per_rollout"]) == ("40", "240", "120.0")
    total = written.loc["epoch total"]
    for column in ("uncached_input", "output", "reasoning", "tokens", "tokens_per_rollout"):
        assert total[column] == "unknown", column  # one unknown rollout: unknown total
    assert "0" not in set(written[written["candidate_id"] == "c001"]["output"])


@pytest.fixture(scope="module")
def no_usage_run(request: pytest.FixtureRequest) -> tuple[Path, str]:
    """A priced model whose provider (a fake on 127.0.0.1) answers without usage: the run
    folder and everything `evolve` printed."""

    def build(folder: Path) -> None:
        request.getfixturevalue("ray_session")
        printed = io.StringIO()
        with fake_provider([], default=("no_usage",)) as provider:
            model = {"name": "fake-model", "upstream": "openai", "base_url": provider.base_url}
            config = tiny_config(
                folder,
                model=model,
                prices={"fake-model": FAKE_PRICE.model_dump()},
                coreset={"size": 2},
                # The fake answers "hello" and does no work, so no synthesized test could be
                # scored: the trajectory judgement scores the run (`no-synth`).
                evolution={"epochs": 1, "rollouts_per_task": 1, "strategy": "no-synth"},
                evaluation={"validation_tasks": 1, "validation_rollouts": 1, "attempts": 1},
            )
            # a paid upstream without caps starts only when told to (the spend guard)
            argv = ["evolve", "--config", str(config), "--run-dir", str(folder / "r"), "--yes"]
            with contextlib.redirect_stdout(printed):
                assert main(argv) == 0
        assert provider.unmetered == len(provider.requests) > 0
        (folder / "printed.txt").write_text(printed.getvalue())

    folder = built_once(request, "no-usage", build)
    return folder / "r", (folder / "printed.txt").read_text()


def _strict_json(text: str) -> object:
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
def test_a_run_without_usage_keeps_tokens_unknown_everywhere(
    no_usage_run: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, printed = no_usage_run
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        rows = db.execute(f"SELECT {', '.join(PARTS)}, cost, n_calls FROM rollouts").fetchall()
    assert rows and all(row[:6] == (None,) * 6 and row[6] > 0 for row in rows)
    for path in (run_dir / "reports").rglob("*.json"):
        _strict_json(path.read_text())
    final = _strict_json((run_dir / "reports" / "final.json").read_text())
    assert isinstance(final, dict)
    assert all(h["tokens_per_task"] is None for h in final["harnesses"])
    capsys.readouterr()
    assert main(["points", str(run_dir), "--json"]) == 0
    profiles = _strict_json(capsys.readouterr().out)
    assert isinstance(profiles, dict)
    assert all(p["tokens_per_task"] is None for p in profiles.values())
    for csv in [
        run_dir / "reports" / "costs.csv",
        *(run_dir / "reports").glob("epoch-*/costs.csv"),
    ]:
        table = pd.read_csv(csv, dtype=str)
        counts = {*PARTS, "tokens", "tokens_per_rollout"}
        for column in [c for c in table.columns if c in counts]:
            assert set(table[column]) == {"unknown"}, (csv, column)
    assert "nan" not in printed.lower() and "$0" not in printed
    assert not re.search(r"(?<![\d,.])0 tokens", printed)
    assert re.search(r"│ unknown\s+│\s*$", printed, re.MULTILINE)  # the tokens/task column


@pytest.mark.slow
def test_a_run_without_usage_is_plotted_on_model_calls(no_usage_run: tuple[Path, str]) -> None:
    run_dir, _ = no_usage_run
    data = load_run(run_dir)
    front = frames.fronts(data)
    assert (front["axis"] == "calls").all()
    # independent: the ledger's mean n_calls of each candidate's coreset rollouts
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        calls = dict(
            db.execute(
                "SELECT candidate_id, AVG(n_calls) FROM rollouts WHERE split = 'coreset' "
                "GROUP BY candidate_id"
            ).fetchall()
        )
    last = front[front["view_epoch"] == front["view_epoch"].max()]
    assert dict(zip(last["candidate"], last["x"], strict=True)) == calls
    fig = figures.front_figure(front, 0.9)
    assert fig.layout.xaxis.title.text == CALL_AXIS
    assert any(len(trace.x) > 0 for trace in fig.data)
    assert CALL_AXIS in (run_dir / "reports" / "epoch-1" / "pareto.html").read_text()
    costs = figures.cost_figure(frames.epoch_costs(data))
    assert any(t.name == "tokens unknown (no usage reported)" for t in costs.data)
    page = (run_dir / "dashboard.html").read_text().replace(get_plotlyjs(), "")
    assert "unknown tokens" in page or "tokens unknown" in page


@pytest.mark.slow
def test_a_seed_that_passes_nothing_is_scored_on_the_instruction_s_checks(
    tmp_path: Path, ray_session: None, capsys: pytest.CaptureFixture[str]
) -> None:
    # A model that does no work passes no seed rollout, so no seed-voted test can be frozen;
    # the instruction's checks alone are (they fail on the untouched workspace), and the run
    # goes on with the seed scored at 0 instead of stopping at epoch 0.
    with fake_provider([], default=("no_usage",)) as provider:
        model = {"name": "fake-model", "upstream": "openai", "base_url": provider.base_url}
        config = tiny_config(
            tmp_path,
            model=model,
            prices={"fake-model": FAKE_PRICE.model_dump()},
            coreset={"size": 2},
            evolution={"epochs": 1, "rollouts_per_task": 1},
            evaluation={"validation_rollouts": 0, "final": False},
        )
        argv = ["evolve", "--config", str(config), "--run-dir", str(tmp_path / "r"), "--yes"]
        assert main(argv) == 0
    assert "Traceback" not in capsys.readouterr().err
    with sqlite3.connect(tmp_path / "r" / "ledger.sqlite") as db:
        seed = db.execute(
            "SELECT pass FROM rollouts WHERE candidate_id = 'c000' AND split = 'coreset'"
        ).fetchall()
    scored = [p for (p,) in seed if p is not None]  # a task the instruction gives no check
    assert scored and all(p == 0 for p in scored)
