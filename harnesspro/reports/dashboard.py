"""The run dashboard: one self-contained HTML file (plotly.js inlined once, opens offline),
rebuilt from the ledger at the end of every epoch and by `harnesspro dashboard RUN`."""

from __future__ import annotations

import json
import math
import os
from html import escape
from pathlib import Path
from typing import Any

import pandas as pd
from plotly.offline import get_plotlyjs

from harnesspro.core.money import dollars, tokens
from harnesspro.harness.repo import HarnessRepo
from harnesspro.reports import figures, frames
from harnesspro.reports.agreement import agreement_by_split
from harnesspro.reports.choice import PointChoice
from harnesspro.reports.decision import decision_report
from harnesspro.reports.decision_view import decision_html
from harnesspro.reports.removal import load_removal
from harnesspro.reports.rundata import RunData, load_run

DIFF_CAP = 20_000  # characters of a candidate's diff kept in the page
HERE = Path(__file__).parent
# Any script error is written into the page, so a broken figure is never silent.
ERROR_TRAP = """<script>window.addEventListener('error', function (e) {
  var box = document.getElementById('page-errors'); box.hidden = false;
  box.appendChild(document.createTextNode('dashboard error: ' + e.message + '\\n'));
});</script>"""


def _pct(x: object) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.1%}"


def _signed(x: object, fmt: str) -> str:
    if x is None or x == frames.ABSENT or (isinstance(x, float) and math.isnan(x)):
        return "—" if x != frames.ABSENT else frames.ABSENT
    return format(float(x), fmt)  # type: ignore[arg-type]


def _table(frame: pd.DataFrame, element_id: str) -> str:
    head = "".join(f"<th>{escape(str(c))}</th>" for c in frame.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>"
        for row in frame.itertuples(index=False)
    )
    return f'<table id="{element_id}"><tr>{head}</tr>{body}</table>'


def _diffs(root: Path, lineage: pd.DataFrame) -> dict[str, str]:
    """Each candidate's diff against its parent, from the run's harness repository."""
    if not (root / "harness").is_dir() or lineage.empty:
        return {}
    repo = HarnessRepo(root / "harness", root / "worktrees")
    commits = {
        str(c): str(sha) for c, sha in zip(lineage["candidate"], lineage["commit"], strict=True)
    }
    out: dict[str, str] = {}
    for r in lineage.itertuples():
        if r.parent in commits:
            text = str(repo.repo.git.diff(commits[str(r.parent)], str(r.commit)))
            out[str(r.candidate)] = text[:DIFF_CAP] + ("\n[...]" if len(text) > DIFF_CAP else "")
    return out


def lineage_details(lineage: pd.DataFrame, diffs: dict[str, str]) -> dict[str, dict[str, str]]:
    """What a click on a lineage node shows, as display strings (JSON in the page)."""
    out = {}
    for r in lineage.to_dict("records"):
        extra = {k: str(v) for k, v in r["plan_columns"].items()}
        out[r["candidate"]] = {
            "candidate": r["candidate"],
            "parent": str(r["parent"] or "—"),
            "directive / mechanism": f"{r['directive']} / {r['mechanism']}",
            "pass rate (coreset)": _pct(r["pass_rate"]),
            "cost per task": dollars(r["cost_per_task"]),
            "rationale": str(r["rationale"]),
            "predicted": f"pass {_signed(r['predicted_pass'], '+.3f')}, "
            f"cost {_signed(r['predicted_cost'], '+.1%')}",
            "measured (vs parent)": f"pass {_signed(r['measured_pass'], '+.3f')}, "
            f"cost {_signed(r['measured_cost'], '+.1%')}",
            "verdict": str(r["verdict"]),
            **extra,
            "note": str(r["note"]),
            "diff": diffs.get(r["candidate"], "(the seed: no parent)"),
        }
    return out


def with_choices(front: pd.DataFrame, choices: list[PointChoice]) -> pd.DataFrame:
    """The front with a `chosen` column: on the last epoch's operating points, why each was
    chosen and on which estimates ('' elsewhere)."""
    if front.empty:
        return front
    why: dict[str, list[str]] = {c.candidate: [] for c in choices}
    for c in choices:
        why[c.candidate].append(c.why)
    last = front["view_epoch"] == front["view_epoch"].max()
    text = [
        "; ".join(why.get(c, [])) if on else ""
        for c, on in zip(front["candidate"], last, strict=True)
    ]
    return front.assign(chosen=text)


def _role(role: str, chosen: str) -> str:
    """A chosen point's role says on which estimates it holds, never a bare 'dominated'."""
    if not chosen:
        return role
    return f"{role} on raw estimates; chosen (see below)" if role != "survivor" else role


def _front_table(front: pd.DataFrame) -> pd.DataFrame:
    if front.empty:
        return front
    last = front[front["view_epoch"] == front["view_epoch"].max()]
    chosen = last["chosen"] if "chosen" in last else pd.Series([""] * len(last), index=last.index)
    return pd.DataFrame(
        {
            "candidate": last["candidate"],
            "role": [_role(r, c) for r, c in zip(last["role"], chosen, strict=True)],
            "modes": last["modes"],
            "mechanism": last["mechanism"],
            "pass": [_pct(p) for p in last["pass_rate"]],
            "$/task": [dollars(c) for c in last["cost_per_task"]],
            "tokens/task": [tokens(t).removesuffix(" tokens") for t in last["tokens_per_task"]],
            "calls/task": [f"{c:.1f}" for c in last["calls_per_task"]],
        }
    )


def _held_out_table(held: pd.DataFrame) -> str:
    if held.empty:
        return '<p id="heldout">No held-out evaluation yet (`harnesspro eval RUN`).</p>'
    shown = pd.DataFrame(
        {
            "harness": held["harness"],
            "candidate": held["candidate"],
            "pass (test)": [_pct(p) for p in held["pass_rate"]],
            "CI": [
                f"{_pct(lo)}–{_pct(hi)}"
                for lo, hi in zip(held["pass_lo"], held["pass_hi"], strict=True)
            ],
            "$/task": [dollars(c) for c in held["cost_per_task"]],
            "g": [_signed(g, "+.3f") for g in held["g"]],
            "vs seed": held["versus_seed"],
        }
    )
    band = held["band"].iloc[0]
    return _table(shown, "heldout") + (
        f"<p>Resolution band: {_pct(band)} of pass rate; differences inside it are ties.</p>"
    )


def _agreement_table(data: RunData) -> str:
    frame = data.rollouts.dropna(subset=["official_pass"])
    if frame.empty or frame["pass"].isna().all():
        return '<p id="agreement">No rollout has both verdicts yet.</p>'
    rows = [
        {
            "split": name,
            "rollouts": a.rollouts,
            "failure recall": _pct(a.failure_recall),
            "failure precision": _pct(a.failure_precision),
            "accuracy": _pct(a.accuracy),
        }
        for name, a in agreement_by_split(data.rollouts).items()
    ]
    return _table(pd.DataFrame(rows), "agreement")


def _dash(value: object) -> str:
    return value if isinstance(value, str) and value else "—"


def _compositions_table(composed: pd.DataFrame) -> str:
    if composed.empty:
        return '<p id="compositions">No composer outcome (evolution.composer is off).</p>'
    shown = pd.DataFrame(
        {
            "epoch": composed["epoch"],
            "parent": composed["parent_id"],
            "outcome": composed["outcome"],
            "children": [" + ".join(json.loads(c)) or "—" for c in composed["children"]],
            "merged": [_dash(m) for m in composed["candidate_id"]],
            "merged verdict": [_dash(v) for v in composed["merged_verdict"]],
            "next epoch expands": composed["carries"],
            "why": composed["why"],
        }
    )
    caption = "<p>Composer outcomes; the next epoch expands what each carries.</p>"
    return caption + _table(shown, "compositions")


def _rounded(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.round(3) if not frame.empty else frame


def _levers_section(data: RunData) -> str:
    """Levers tried with their verdicts, latency beside pass rate and cost, composer outcomes."""
    tried = frames.levers_tried(data)
    used = int((tried["tried"] > 0).sum())
    late = frames.latency(data)
    shown = pd.DataFrame(
        {
            "candidate": late["candidate_id"],
            "change": late["change"],
            "verdict": late["verdict"],
            "pass (coreset)": [_pct(p) for p in late["pass_rate"]],
            "$/task": [dollars(c) for c in late["cost_per_task"]],
            "latency s/rollout": ["—" if math.isnan(x) else f"{x:.1f}" for x in late["latency_s"]],
        }
    )
    effects = frames.lever_effect_table(data)
    return (
        "<p>What each lever did: the surrogate's effect on the seed of each feature alone, "
        f"with {data.confidence:.0%} intervals from its posterior (not a stack's verdict "
        "copied to its members).</p>"
        + _table(_rounded(effects), "lever-effects")
        + f"<p id='lever-count'>{used} of {len(tried)} levers tried; the verdict columns "
        "count the verdicts of the plans (often stacks) that touched each lever.</p>"
        + _table(tried, "levers")
        + "<p>Latency is the harness's wall time per rollout; grading is not included.</p>"
        + _table(shown, "latency")
        + _compositions_table(frames.compositions(data))
    )


def _figure(fig: Any, element_id: str) -> str:
    return str(fig.to_html(full_html=False, include_plotlyjs=False, div_id=element_id))


def _removal_table(data: RunData) -> str:
    frame = load_removal(data.root)
    if frame.empty:
        return '<p id="removal">Not run (evaluation.removal_rollouts is 0 or too small).</p>'
    return _table(frame.round(3), "removal")


def _choices_list(choices: list[PointChoice]) -> str:
    if not choices:
        return ""
    items = "".join(f"<li>{escape(c.why)}</li>" for c in choices)
    return f'<p>Why these operating points:</p><ul id="choices">{items}</ul>'


def render(data: RunData) -> str:
    """The dashboard page of one run."""
    front = frames.fronts(data)
    choices = frames.choices(data, front)
    front = with_choices(front, choices)
    lineage = frames.lineage(data)
    details = lineage_details(lineage, _diffs(data.root, lineage)) if not lineage.empty else {}
    heat = frames.pass_heatmap(data)
    status = data.meta.get("status", "running")
    stopped = data.meta.get("stopped")
    sections = [
        ("Front per epoch", _figure(figures.front_figure(front, data.confidence), "front")),
        ("Operating points and candidates (last epoch)", _table(_front_table(front), "points") + _choices_list(choices)),  # noqa: E501
        ("Hypervolume", _figure(figures.hypervolume_figure(frames.hypervolumes(data, front)), "hypervolume")),  # noqa: E501
        ("Lineage", _figure(figures.lineage_figure(lineage), "lineage")
         + '<pre id="lineage-detail">Click a node to see its diff, plan and verdict.</pre>'
         if not lineage.empty else '<p id="lineage">No candidate yet.</p>'),
        ("Cost per epoch", _figure(figures.cost_figure(frames.epoch_costs(data)), "costs")),
        ("Budget", _figure(figures.spend_figure(frames.cumulative_spend(data)), "spend")),
        ("Per-task pass", _figure(figures.heatmap_figure(heat), "heatmap") if not heat.empty
         else '<p id="heatmap">No scored rollout yet.</p>'),
        ("Synthesized vs official tests (failure = positive)", _agreement_table(data)),
        ("Held-out evaluation (test split, official tests)", _held_out_table(frames.held_out(data))),  # noqa: E501
        ("Deciding from the held-out evaluation", decision_html(decision_report(data))),
        ("Component removal (coreset, official tests)", _removal_table(data)),
        ("Lever effects, levers tried, latency and composer", _levers_section(data)),
    ]  # fmt: skip
    body = "".join(f"<section><h2>{escape(t)}</h2>{html}</section>" for t, html in sections)
    title = f"HarnessPro run {data.name}"
    header = f"<h1>{escape(title)}</h1><p id='status'>status: {escape(status)}" + (
        f"; stopped early: {escape(stopped)}" if stopped else ""
    ) + "</p>"  # fmt: skip
    script = (HERE / "dashboard.js").read_text()
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
        f"<style>{STYLE}</style>{ERROR_TRAP}<script>{get_plotlyjs()}</script></head><body>"
        "<pre id='page-errors' hidden></pre>"
        f"{header}{body}"
        f"<script type='application/json' id='lineage-data'>{_json_for_script(details)}</script>"
        f"<script>{script}</script></body></html>"
    )


STYLE = """body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 8px;
font-size:13px;text-align:left}pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap;
max-height:32em;overflow:auto;font-size:12px}#page-errors{background:#fdd;color:#900}
section{margin-bottom:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd}"""


def _json_for_script(value: object) -> str:
    # "</" inside a script element would end it early.
    return json.dumps(value).replace("</", "<\\/")


def write_atomic(path: Path, text: str) -> Path:
    """Write via a temporary file and rename: a reader never sees half a page."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def write_dashboard(run_dir: Path, out: Path | None = None) -> Path:
    """RUN/dashboard.html (or `out`) from the run's ledger and reports."""
    return write_atomic(out or run_dir / "dashboard.html", render(load_run(run_dir)))
