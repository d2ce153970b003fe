"""The run dashboard and the cost reports on a finished tiny run: figures' data against the
ledger (direct SQL), the command, and the page in a real headless browser."""

from __future__ import annotations

import html
import json
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main
from harnesspro.reports import frames
from harnesspro.reports.rundata import load_run

CLICK = Path(__file__).parent / "data" / "click_lineage.js"
KEY_IDS = (
    "front", "points", "hypervolume", "lineage", "lineage-detail", "costs", "spend", "heatmap",
    "agreement", "heldout", "levers", "latency", "compositions",
)  # fmt: skip


def sql(run_dir: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(run_dir / "ledger.sqlite") as db:
        return db.execute(query).fetchall()


def test_cost_reports_add_up_to_the_ledger(finished_run: Path) -> None:
    ((target,),) = sql(finished_run, "SELECT sum(cost) FROM rollouts WHERE split != 'test'")
    ((held_out,),) = sql(finished_run, "SELECT sum(cost) FROM rollouts WHERE split = 'test'")
    ((tokens,),) = sql(
        finished_run,
        "SELECT sum(uncached_input + cached_input + cache_write + output) FROM rollouts",
    )
    run = pd.read_csv(finished_run / "reports" / "costs.csv")
    rows = run[run["epoch"] != "total"]
    assert rows[rows["account"] == "target"]["dollars"].astype(float).sum() == pytest.approx(
        float(str(target))
    )
    total = run[run["epoch"] == "total"].iloc[0]
    assert float(total["dollars"]) == pytest.approx(float(str(target)) + float(str(held_out)))
    assert int(total["tokens"]) == tokens
    # The last epoch's running total is the whole search so far; the seed's baseline is its
    # epoch-0 coreset rollouts.
    last = pd.read_csv(finished_run / "reports" / "epoch-1" / "costs.csv").set_index("scope")
    assert float(last.loc["running total", "dollars"]) == pytest.approx(float(str(target)))
    ((seed, n, tasks),) = sql(
        finished_run,
        "SELECT sum(cost), count(*), count(DISTINCT task_id) FROM rollouts "
        "WHERE candidate_id = 'c000' AND split = 'coreset' AND epoch = 0",
    )
    base = last.loc["seed baseline"]
    assert float(base["dollars"]) == pytest.approx(float(str(seed)))
    assert float(base["dollars_per_rollout"]) == pytest.approx(float(str(seed)) / int(str(n)))
    assert float(base["dollars_per_task"]) == pytest.approx(float(str(seed)) / int(str(tasks)))


def test_hypervolume_reference_is_fixed_at_epoch_zero(finished_run: Path) -> None:
    ((seed_cost,),) = sql(
        finished_run,
        "SELECT avg(cost) FROM rollouts WHERE candidate_id = 'c000' AND split = 'coreset' "
        "AND pass IS NOT NULL",
    )
    ((ref,),) = sql(finished_run, "SELECT value FROM meta WHERE key = 'hypervolume_ref_cost'")
    assert float(str(ref)) == pytest.approx(2 * float(str(seed_cost)))
    data = load_run(finished_run)
    hv = frames.hypervolumes(data, frames.fronts(data))
    assert list(hv["epoch"]) == [0, 1] and (hv["ref_cost"] == float(str(ref))).all()
    recorded = dict(sql(finished_run, "SELECT epoch, hypervolume FROM epochs"))
    shown = dict(zip(hv["epoch"], hv["hypervolume"], strict=True))
    last = max(recorded)
    # The last epoch's front is judged as the search judged it. Earlier fronts are judged here
    # by the final verdicts, which search consensus changes when it refines a test (earlier
    # rollouts are graded again): equal to the recorded values only without a refinement.
    assert shown[last] == pytest.approx(recorded[last])
    ((refined,),) = sql(finished_run, "SELECT count(*) FROM refined_tests")
    if not refined:
        assert shown == pytest.approx(recorded)


def test_fronts_match_the_recorded_selection(finished_run: Path) -> None:
    data = load_run(finished_run)
    front = frames.fronts(data)
    for epoch, group in front.groupby("view_epoch"):
        picks = dict(
            sql(finished_run, f"SELECT candidate_id, mode FROM selections WHERE epoch = {epoch}")
        )  # noqa: E501
        picked = group[group["modes"] != ""]
        assert set(picked["candidate"]) == set(picks)
        assert (picked["role"] == "survivor").all()  # picks come from the survivors
        created = dict(sql(finished_run, "SELECT id, epoch FROM candidates"))
        assert all(created[c] <= epoch for c in group["candidate"])


def test_lineage_reads_plan_columns_when_present(finished_run: Path, tmp_path: Path) -> None:
    lineage = frames.lineage(load_run(finished_run)).set_index("candidate")
    plans = sql(
        finished_run,
        "SELECT child_id, rationale, verdict, measured_pass FROM plans WHERE child_id IS NOT NULL",
    )
    assert plans
    by_child = {row[0]: row for row in plans}  # a shared tree: the last plan naming it
    for child, rationale, verdict, measured in by_child.values():
        assert lineage.loc[child, "rationale"] == rationale
        assert lineage.loc[child, "verdict"] == (verdict or frames.ABSENT)
        if measured is not None:
            assert lineage.loc[child, "measured_pass"] == pytest.approx(measured)
    # A ledger without verdicts (older runs): "—", never a guess.
    copy = tmp_path / "run"
    shutil.copytree(finished_run, copy, ignore=shutil.ignore_patterns("worktrees", "rollouts"))
    with sqlite3.connect(copy / "ledger.sqlite") as db:
        db.execute("UPDATE plans SET verdict = NULL")
    lineage = frames.lineage(load_run(copy)).set_index("candidate")
    assert (lineage.loc[[str(c) for c, *_ in plans], "verdict"] == frames.ABSENT).all()


def test_heatmap_is_the_ledger_pass_rate(finished_run: Path) -> None:
    data = load_run(finished_run)
    heat = frames.pass_heatmap(data)
    coreset = "','".join(data.coreset)
    for cid, task, rate in sql(
        finished_run,
        "SELECT candidate_id, task_id, avg(pass) FROM rollouts WHERE status != 'infra_error' "
        f"AND pass IS NOT NULL AND task_id IN ('{coreset}') GROUP BY 1, 2",
    ):
        assert heat.loc[cid, task] == pytest.approx(rate)


@pytest.fixture(scope="module")
def dashboard(finished_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dash") / "dashboard.html"
    assert main(["dashboard", str(finished_run), "--out", str(out)]) == 0
    return out


def test_dashboard_is_one_self_contained_page(finished_run: Path, dashboard: Path) -> None:
    html = dashboard.read_text()
    assert html.count("<script src=") == 0 and html.count("plotly.js v") == 1
    for element in KEY_IDS:
        assert f'id="{element}"' in html or f"id='{element}'" in html
    assert (finished_run / "dashboard.html").is_file()  # written by the run itself


def test_index_links_every_run(finished_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "dashboards" / "index.html"
    assert main(["dashboard", "--index", str(finished_run.parent), "--out", str(out)]) == 0
    html = out.read_text()
    assert finished_run.name in html and "dashboard.html" in html and "lite c" in html
    assert main(["dashboard"]) == 2 and main(["dashboard", "--index", str(tmp_path / "no")]) == 2


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip(
            "no chromium: `make test` installs it with scripts/install_chromium.sh when root"
        )
    return path


def _headless(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    flags = [
        "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        f"--user-data-dir={profile}", "--virtual-time-budget=10000",
        "--enable-logging=stderr", "--v=0",
    ]  # fmt: skip
    return subprocess.run(
        [chromium, *flags, *args], capture_output=True, text=True, timeout=180, check=True
    )


@pytest.mark.slow
def test_dashboard_in_a_real_browser(dashboard: Path, tmp_path: Path) -> None:
    from PIL import Image

    chromium = _chromium()
    dom = _headless(chromium, tmp_path / "p1", "--dump-dom", dashboard.as_uri())
    console = [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert not [line for line in console if "rror" in line or "Uncaught" in line], console
    page = dom.stdout
    assert '<pre id="page-errors" hidden=""></pre>' in page  # no script error trapped
    for element in KEY_IDS:
        assert f'id="{element}"' in page
    assert page.count('class="main-svg"') >= 6  # plotly drew the figures
    assert "rationale:" in page and "diff --git" in page  # the lineage detail script ran
    shot = tmp_path / "dashboard.png"
    _headless(chromium, tmp_path / "p2", "--window-size=1280,4400", f"--screenshot={shot}",
              dashboard.as_uri())  # fmt: skip
    with Image.open(shot) as image:
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert colours is not None and len(colours) > 50  # not blank: text, markers, heatmap


@pytest.mark.slow
def test_clicking_a_lineage_node_shows_that_node(
    finished_run: Path, dashboard: Path, tmp_path: Path
) -> None:
    chromium = _chromium()
    page = dashboard.read_text()
    details = json.loads(page.split("id='lineage-data'>")[1].split("</script>")[0])
    default = sorted(details)[-1]  # what the panel shows before any click
    plans = sql(
        finished_run,
        "SELECT p.child_id, p.rationale, p.verdict, c.commit_sha, parent.commit_sha "
        "FROM plans p JOIN candidates c ON c.id = p.child_id "
        "JOIN candidates parent ON parent.id = c.parent ORDER BY p.child_id",
    )
    child, rationale, verdict, commit, parent_commit = next(p for p in plans if p[0] != default)
    script = CLICK.read_text().replace("TARGET", json.dumps(child))
    clicked = tmp_path / "clicked.html"
    clicked.write_text(page.replace("</body>", f"<script>{script}</script></body>"))
    dom = _headless(chromium, tmp_path / "p", "--window-size=1280,1000", "--dump-dom",
                    clicked.as_uri()).stdout  # fmt: skip
    assert f'data-clicked="{child} on nsewdrag drag"' in dom  # the pointer hit plotly's plot
    match = re.search(r'<pre id="lineage-detail">(.*?)</pre>', dom, re.S)
    assert match is not None
    panel = html.unescape(match.group(1))
    assert panel.startswith(f"candidate: {child}\n") and default != child
    assert f"rationale: {rationale}\n" in panel
    assert f"verdict: {verdict or frames.ABSENT}\n" in panel
    # independent: git's own diff between the parent's and the child's commits
    diff = subprocess.run(
        ["git", "-C", str(finished_run / "harness"), "diff", parent_commit, commit],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    changed = [line for line in diff.splitlines() if line.startswith(("+", "-"))][2]
    assert diff.splitlines()[0] in panel and changed in panel
