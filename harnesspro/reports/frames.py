"""The dashboard's figures as data: one pure function per figure, from a RunData snapshot to a
frame (tested without plotly; drawing is in dashboard.py)."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from harnesspro.core import pareto
from harnesspro.core.ledger import records_of, rows_of
from harnesspro.core.metrics import candidate_scores
from harnesspro.core.records import Candidate, Score
from harnesspro.core.uncertainty import Uncertainty
from harnesspro.evaluation.selection.composition import composition_table
from harnesspro.reports import choice, lever_effects, levers
from harnesspro.reports.budget import per_epoch
from harnesspro.reports.choice import PointChoice
from harnesspro.reports.costs import run_costs, with_split
from harnesspro.reports.pareto_plot import front_frame
from harnesspro.reports.rundata import RunData

SEED_ID = "c000"
ABSENT = "—"  # a ledger without the column (older runs): shown, never guessed


def _candidates(data: RunData, upto: int | None = None) -> dict[str, Candidate]:
    frame = data.candidates if upto is None else data.candidates[data.candidates["epoch"] <= upto]
    return {
        str(r["id"]): Candidate(
            str(r["id"]),
            str(r["commit"]),
            str(r["tree"]),
            _text(r["parent"]),
            _text(r["directive"]),
            _text(r["mechanism"]),
            int(r["epoch"]),
        )
        for r in frame.to_dict("records")
    }


def _text(value: object) -> str | None:
    """pandas reads SQL NULL in a text column as None or NaN; both mean absent."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return str(value)


def _intervals(data: RunData, epoch: int) -> dict[str, Uncertainty]:
    rows = data.intervals[data.intervals["epoch"] == epoch]
    return {
        str(r["candidate_id"]): Uncertainty(
            str(r["candidate_id"]),
            (_f(r["pass_lo"]), _f(r["pass_hi"])),
            (_f(r["cost_lo"]), _f(r["cost_hi"])),
            _f(r["p_nondominated"]),
        )
        for r in rows.to_dict("records")
    }


def _f(value: object) -> float:
    return math.nan if value is None else float(value)  # type: ignore[arg-type]


def fronts(data: RunData) -> pd.DataFrame:
    """The Pareto-front frame of every finished epoch (column `view_epoch`): the candidates
    created up to it, scored on the coreset, with that epoch's picks and intervals."""
    frames = []
    for epoch in sorted(data.epochs["epoch"].astype(int).tolist()):
        known = _candidates(data, epoch)
        rollouts = data.rollouts[data.rollouts["candidate_id"].isin(list(known))]
        scores = candidate_scores(rows_of(rollouts), data.coreset)
        sel = data.selections[data.selections["epoch"] == epoch]
        picks = dict(zip(sel["mode"], sel["candidate_id"], strict=True))
        frame = front_frame(scores, known, picks, SEED_ID, _intervals(data, epoch))
        frames.append(frame.assign(view_epoch=epoch))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def reference_cost(data: RunData, front: pd.DataFrame) -> float | None:
    """The fixed reference point (ledger meta); ledgers from before it was stored get the same
    rule applied to epoch 0: twice the dearest x seen then."""
    if "hypervolume_ref_cost" in data.meta:
        return float(data.meta["hypervolume_ref_cost"])
    first = front[front["view_epoch"] == front["view_epoch"].min()] if not front.empty else front
    return 2 * float(first["x"].max()) if not first.empty else None


def hypervolumes(data: RunData, front: pd.DataFrame) -> pd.DataFrame:
    """Hypervolume of each epoch's candidates against the one reference point of epoch 0."""
    ref = reference_cost(data, front)
    rows = []
    epochs = sorted(front["view_epoch"].astype(int).unique()) if not front.empty else []
    for epoch in epochs:
        group = front[front["view_epoch"] == epoch]
        hv = pareto.hypervolume(group["pass_rate"], group["x"], ref) if ref else math.nan
        rows.append(
            {"epoch": epoch, "hypervolume": hv, "ref_cost": ref, "axis": group["axis"].iloc[0]}
        )
    return pd.DataFrame(rows, columns=["epoch", "hypervolume", "ref_cost", "axis"])


def _plan_field(plan: dict[str, Any] | None, column: str) -> object:
    if plan is None or column not in plan:
        return ABSENT
    value = plan[column]
    return ABSENT if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _measured(plan: dict[str, Any] | None, column: str, computed: float) -> float:
    value = _plan_field(plan, column)
    return computed if value == ABSENT else float(value)  # type: ignore[arg-type]


def _placed(candidates: pd.DataFrame) -> pd.DataFrame:
    """The candidates sorted by epoch then directive, each with its row within its epoch."""
    order = {"seed": 0, "cost-first": 1, "balanced": 2, "performance-first": 3}
    frame = candidates.assign(
        directive=candidates["directive"].fillna("seed"),
        mechanism=candidates["mechanism"].fillna("seed"),
    )
    frame = frame.assign(rank=frame["directive"].map(order).fillna(4))
    frame = frame.sort_values(["epoch", "rank", "id"])
    return frame.assign(row=frame.groupby("epoch").cumcount())


def _lineage_row(r: dict[str, Any], scores: dict[str, Score], plan: dict[str, Any] | None) -> dict:
    """One candidate's row: placement, scores, its plan and the measured effect."""
    cid, parent = str(r["id"]), _text(r["parent"])
    s, ps = scores.get(cid), scores.get(str(parent)) if parent else None
    measured_pass = s.pass_rate - ps.pass_rate if s and ps else math.nan
    measured_cost = (
        s.cost_per_task / ps.cost_per_task - 1
        if s and ps and ps.cost_per_task and math.isfinite(s.cost_per_task / ps.cost_per_task)
        else math.nan
    )
    return {
        "candidate": cid,
        "parent": parent,
        "epoch": int(r["epoch"]),
        "row": int(r["row"]),
        "directive": r["directive"],
        "mechanism": r["mechanism"],
        "commit": r["commit"],
        "pass_rate": s.pass_rate if s else math.nan,
        "cost_per_task": s.cost_per_task if s else math.nan,
        "tokens_per_task": s.tokens_per_task if s else math.nan,
        "rationale": _plan_field(plan, "rationale"),
        "predicted_pass": _plan_field(plan, "predicted_pass"),
        "predicted_cost": _plan_field(plan, "predicted_cost"),
        # The ledger's paired measurement when it has one, else child minus parent.
        "measured_pass": _measured(plan, "measured_pass", measured_pass),
        "measured_cost": _measured(plan, "measured_cost", measured_cost),
        "verdict": _plan_field(plan, "verdict"),
        "note": _plan_field(plan, "note"),
        "plan_columns": {k: _plan_field(plan, k) for k in (plan or {}) if k.startswith("verdict_")},
    }


def lineage(data: RunData) -> pd.DataFrame:
    """One row per candidate: where it sits (epoch, row within the epoch by directive), its
    parent, its coreset score, and the plan that made it: rationale, predicted effect, the
    measured effect on the coreset (child minus parent) and the plan's verdict when the ledger
    records one."""
    scores = candidate_scores(rows_of(data.rollouts), data.coreset)
    plans: dict[str, dict[str, Any]] = {
        str(p["child_id"]): {str(k): v for k, v in p.items()}
        for p in data.plans.to_dict("records")
        if p.get("child_id")
    }
    rows = [
        _lineage_row({str(k): v for k, v in r.items()}, scores, plans.get(str(r["id"])))
        for r in _placed(data.candidates).to_dict("records")
    ]
    return pd.DataFrame(rows)


def epoch_costs(data: RunData) -> pd.DataFrame:
    """Per epoch and account (target rollouts, search calls): token parts and dollars."""
    table = run_costs(data.rollouts, data.search_calls)
    return table[table["epoch"] != "total"] if not table.empty else table


def cumulative_spend(data: RunData) -> pd.DataFrame:
    """Per epoch, each budget measure's running total beside its cap (None = uncapped,
    spent None = unknown)."""
    search = with_split(data.rollouts)
    search = search[search["split"] != "test"]
    budget = data.config.budget if data.config else None
    caps = {
        "rollouts": data.config.evaluation.max_rollouts if data.config else None,
        "target dollars": budget.max_target_dollars if budget else None,
        "improver dollars": budget.max_improver_dollars if budget else None,
    }
    rows = []
    for e in per_epoch(search, data.search_calls):
        for measure, spent in (
            ("rollouts", float(e.cumulative_rollouts)),
            ("target dollars", e.cumulative_target_dollars),
            ("improver dollars", e.cumulative_improver_dollars),
        ):
            rows.append(
                {"epoch": e.epoch, "measure": measure, "spent": spent, "cap": caps[measure]}
            )
    return pd.DataFrame(rows, columns=["epoch", "measure", "spent", "cap"])


def pass_heatmap(data: RunData) -> pd.DataFrame:
    """Candidate x coreset task: the share of its scored rollouts that passed the frozen test."""
    frame = data.rollouts[data.rollouts["task_id"].isin(list(data.coreset))]
    frame = frame[frame["status"] != "infra_error"].dropna(subset=["pass"])
    if frame.empty:
        return pd.DataFrame()
    table = frame.pivot_table(
        index="candidate_id", columns="task_id", values="pass", aggfunc="mean"
    )
    return table.sort_index().reindex(sorted(table.columns), axis=1)


def held_out(data: RunData) -> pd.DataFrame:
    """The held-out table: seed vs lite/medium/heavy with pass rate, CI, cost, g, the band."""
    if not data.final:
        return pd.DataFrame()
    band = data.final.get("band", {}).get("whole_split")
    rows = []
    for h in data.final["harnesses"]:
        lo, hi = h.get("pass_rate_ci") or (None, None)
        rows.append(
            {
                "harness": h["harness"],
                "candidate": h["candidate_id"],
                "pass_rate": h["pass_rate"],
                "pass_lo": lo,
                "pass_hi": hi,
                "cost_per_task": h.get("cost_per_task"),
                "tokens_per_task": h.get("tokens_per_task"),
                "g": h.get("gain"),
                "versus_seed": h.get("versus_seed"),
                "band": band,
            }
        )
    return pd.DataFrame(rows)


def levers_tried(data: RunData) -> pd.DataFrame:
    """Per lever: plans that touched it and their verdicts; untried levers with 0."""
    return levers.with_untried(levers.lever_coverage(data.plans))


def latency(data: RunData) -> pd.DataFrame:
    """Per candidate on the coreset: pass rate, cost and latency (grading excluded), verdict."""
    return levers.latency_with_verdicts(data.rollouts, data.plans, data.coreset)


def compositions(data: RunData) -> pd.DataFrame:
    """The composer's outcomes with the merged candidate's verdict and what each carries."""
    if data.compositions.empty:
        return data.compositions
    table = composition_table(records_of(data.compositions), records_of(data.plans))
    return pd.DataFrame(table, columns=[*data.compositions.columns, "merged_verdict", "carries"])


def choices(data: RunData, front: pd.DataFrame) -> list[PointChoice]:
    """Why each of the last epoch's operating points was chosen, on which estimates (the
    shrunk ones beside the raw ones the front shows), and who dominates it on each."""
    if front.empty:
        return []
    last = front[front["view_epoch"] == front["view_epoch"].max()]
    raw = {
        str(r["candidate"]): (float(r["pass_rate"]), float(r["x"])) for r in last.to_dict("records")
    }
    sel = data.selections[data.selections["epoch"] == int(last["view_epoch"].iloc[0])]
    picks = {str(m): str(c) for m, c in zip(sel["mode"], sel["candidate_id"], strict=True)}
    modes = data.config.selection.modes if data.config else {}
    weights = {m: (w.alpha, w.beta) for m, w in modes.items()}
    shrunk = choice.shrunk_points(data.shrunk)
    return choice.point_choices(picks, raw, shrunk, weights, str(last["axis"].iloc[0]))


def lever_effect_table(data: RunData) -> pd.DataFrame:
    """The surrogate's per-lever effects on the seed with intervals (reports/lever_effects)."""
    seed = data.config.seed if data.config else 0
    return lever_effects.lever_effects(
        data.rollouts, data.coreset, _candidates(data), data.plans, data.confidence, seed
    )
