"""The benchmark's tables and outputs: per-run rows, the per-strategy summary (mean and 90%
bootstrap interval over profiles, paired wins of the default strategy), bench.csv,
summary.csv, bench.json and a self-contained plotly bench.html."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
from rich.table import Table

from harnesspro.bench.arithmetic import (
    Point,
    bootstrap_interval,
    heavy_gain,
    lite_cost_cut,
    paired_wins,
)
from harnesspro.bench.paired import paired_frame, paired_markdown
from harnesspro.bench.runner import Outcome
from harnesspro.bench.yardstick import Labelled, Yardstick, built

DEFAULT = "harnesspro"


def run_rows(
    outcomes: Sequence[Outcome],
    extra: Mapping[int, Sequence[Point]],
    yardsticks: Mapping[int, Yardstick] | None = None,
) -> pd.DataFrame:
    """One row per run (variant, profile and, under `--run-seeds`, run seed): normalised test
    hypervolume against the profile's yardstick (the stored one in `yardsticks`, else one
    built from these runs and `extra`), the gain over the seed, heavy gain, lite cut."""
    rows = []
    for profile in sorted({o.profile for o in outcomes}):
        mine = [o for o in outcomes if o.profile == profile]
        stick = (yardsticks or {}).get(profile) or profile_yardstick(
            profile, mine, extra.get(profile, ())
        )
        for o in mine:
            seed = o.points["seed"]
            nhv = stick.normalised(list(o.points.values()))
            rows.append(
                {
                    "variant": o.variant,
                    "profile": profile,
                    **({} if o.run_seed is None else {"run_seed": o.run_seed}),
                    "misleading": o.misleading,
                    "normalised_hv": nhv,
                    "hv_gain": nhv - stick.normalised([seed]),
                    "heavy_gain": heavy_gain(seed, o.points.get("heavy", seed)),
                    "lite_cost_cut": lite_cost_cut(seed, o.points.get("lite", seed)),
                    "rollouts": o.rollouts,
                    **{f"{m}_pass": p for m, (p, _) in o.points.items()},
                    **{f"{m}_cost": c for m, (_, c) in o.points.items()},
                }
            )
    return pd.DataFrame(rows)


def labelled_points(outcomes: Sequence[Outcome]) -> list[Labelled]:
    """Every operating point of these runs, labelled variant[@run seed]:mode."""
    return [(f"{_run_label(o)}:{m}", p, c) for o in outcomes for m, (p, c) in o.points.items()]


def profile_yardstick(
    profile: int, outcomes: Sequence[Outcome], extra: Sequence[Point] = (), key: str = ""
) -> Yardstick:
    """A yardstick built from these runs of one profile (and `extra` points) alone."""
    stick = built(profile, [o.points["seed"] for o in outcomes], key)
    return stick.extended(
        [*labelled_points(outcomes), *((f"extra:{i}", p, c) for i, (p, c) in enumerate(extra))]
    )


def _run_label(o: Outcome) -> str:
    return o.variant if o.run_seed is None else f"{o.variant}@{o.run_seed}"


def per_profile(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (variant, profile): the mean over its run seeds (an unknown stays unknown:
    a mean with one unknown term is unknown); the rows themselves without `--run-seeds`."""
    if "run_seed" not in rows:
        return rows
    keys = ["variant", "profile", "misleading"]
    values = [c for c in rows.columns if c not in (*keys, "run_seed")]
    numbers = rows.assign(**{c: pd.to_numeric(rows[c]) for c in values})
    grouped = numbers.groupby(keys, sort=False)[values]
    return grouped.agg(_strict_mean).reset_index()


def _strict_mean(values: pd.Series) -> float:
    return float(values.mean(skipna=False))


def _cell(values: pd.Series, seed: int) -> dict[str, float]:
    i = bootstrap_interval(values.astype(float).tolist(), seed=seed)
    return {"mean": i.mean, "low": i.low, "high": i.high}


def by_profile(rows: pd.DataFrame) -> dict[int, float]:
    return {int(p): float(v) for p, v in zip(rows["profile"], rows["normalised_hv"], strict=True)}


def summary(rows: pd.DataFrame, seed: int = 0, default_variant: str = DEFAULT) -> pd.DataFrame:
    """Per variant: means and 90% intervals over profiles (each profile's figure the mean of
    its run seeds); `default_variant`'s paired wins on those per-profile figures."""
    seeds = rows["run_seed"].nunique() if "run_seed" in rows else 1
    rows = per_profile(rows)
    default = by_profile(rows[rows["variant"] == default_variant])
    out = []
    for variant, group in rows.groupby("variant", sort=False):
        row: dict[str, object] = {"variant": variant, "profiles": len(group), "run_seeds": seeds}
        for column in ("normalised_hv", "hv_gain", "heavy_gain", "lite_cost_cut"):
            for k, v in _cell(group[column], seed).items():
                row[f"{column}_{k}"] = v
        row["rollouts_mean"] = float(group["rollouts"].mean())
        for tag, part in (("misleading", True), ("plain", False)):
            values = group[group["misleading"] == part]["normalised_hv"]
            row[f"normalised_hv_{tag}"] = float(values.mean()) if len(values) else math.nan
        if variant != default_variant and default:
            w = paired_wins(default, by_profile(group))
            row.update(
                default_wins=w.wins,
                default_ties=w.ties,
                default_losses=w.losses,
                default_win_share=w.share,
            )
        out.append(row)
    return pd.DataFrame(out)


def _fmt(row: pd.Series, column: str, pct: bool = False) -> str:
    mean, low, high = (row[f"{column}_{k}"] for k in ("mean", "low", "high"))
    if not math.isfinite(mean):
        return "n/a"
    f = "{:+.1%}" if pct else "{:.3f}"
    return f"{f.format(mean)} [{f.format(low)}, {f.format(high)}]"


COLUMNS = (
    "strategy",
    "norm. HV",
    "HV gain over seed",
    "heavy pass gain",
    "lite cost cut",
    "rollouts",
    "harnesspro wins/ties/losses",
    "norm. HV misleading / plain",
)


def _split(value: float) -> str:
    return f"{value:.3f}" if math.isfinite(value) else "n/a"


def cells(r: pd.Series) -> list[str]:
    """One summary row as the table's cells."""
    wins = "-"
    if r["variant"] != DEFAULT and "default_wins" in r and pd.notna(r["default_wins"]):
        wins = f"{int(r['default_wins'])}/{int(r['default_ties'])}/{int(r['default_losses'])}"
    return [
        str(r["variant"]),
        _fmt(r, "normalised_hv"),
        _fmt(r, "hv_gain") if "hv_gain_mean" in r else "n/a",
        _fmt(r, "heavy_gain", True),
        _fmt(r, "lite_cost_cut", True),
        f"{r['rollouts_mean']:.0f}",
        wins,
        f"{_split(r['normalised_hv_misleading'])} / {_split(r['normalised_hv_plain'])}",
    ]


def table(summary_frame: pd.DataFrame) -> Table:
    seeds = int(summary_frame["run_seeds"].max()) if len(summary_frame) else 1
    each = f", each profile the mean of {seeds} run seeds" if seeds > 1 else ""
    t = Table(
        title=f"benchmark (test split, official tests; mean [90% interval] over profiles{each})"
    )
    for column in COLUMNS:
        t.add_column(column)
    for _, r in summary_frame.iterrows():
        t.add_row(*cells(r))
    return t


def markdown(summary_frame: pd.DataFrame) -> str:
    """The summary as a Markdown table (for the README)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells(r)) + " |" for _, r in summary_frame.iterrows()]
    return "\n".join(lines)


def summary_markdown(summary_frame: pd.DataFrame, paired: pd.DataFrame, note: str = "") -> str:
    """summary.md: the paired comparison over units first (what decides), then the
    per-strategy means over profiles, then `note` (the test split's resolution)."""
    parts = []
    if not paired.empty:
        parts.append(
            f"Paired over units (profile, run seed): {DEFAULT} minus each strategy.\n\n"
            + paired_markdown(paired, DEFAULT)
        )
    parts.append("Per strategy, mean [90% interval] over profiles.\n\n" + markdown(summary_frame))
    parts += [note] if note else []
    return "\n\n".join(parts) + "\n"


def figures(rows: pd.DataFrame, summary_frame: pd.DataFrame) -> list[go.Figure]:
    s = summary_frame
    bars = go.Figure(
        go.Bar(
            x=s["variant"],
            y=s["normalised_hv_mean"],
            error_y={
                "type": "data",
                "symmetric": False,
                "array": s["normalised_hv_high"] - s["normalised_hv_mean"],
                "arrayminus": s["normalised_hv_mean"] - s["normalised_hv_low"],
            },
        )
    )
    bars.update_layout(title="normalised test hypervolume (mean, 90% bootstrap interval)")
    long = []
    for _, r in rows.iterrows():
        for mode in ("seed", "lite", "medium", "heavy"):
            if f"{mode}_pass" in r and pd.notna(r[f"{mode}_pass"]):
                long.append(
                    {
                        "variant": r["variant"],
                        "profile": r["profile"],
                        "point": mode,
                        "pass rate": r[f"{mode}_pass"],
                        "cost per task": r[f"{mode}_cost"],
                    }
                )
    profiles = rows["profile"].nunique()
    wrap = 3 if profiles <= 9 else 6
    grid_rows = math.ceil(profiles / wrap)
    scatter = px.scatter(
        pd.DataFrame(long),
        x="cost per task",
        y="pass rate",
        color="variant",
        symbol="point",
        facet_col="profile",
        facet_col_wrap=wrap,
        # plotly refuses a spacing above 1 / (rows - 1): 60 profiles make 10 rows
        facet_row_spacing=min(0.07, 0.5 / max(grid_rows - 1, 1)),
        height=max(450, 160 * grid_rows),
        title="test-split operating points per profile",
    )
    return [bars, scatter]


def page(figs: Sequence[go.Figure]) -> str:
    """One HTML page holding the figures (plotly's script inlined once)."""
    html = "".join(
        f.to_html(full_html=False, include_plotlyjs="inline" if i == 0 else False)
        for i, f in enumerate(figs)
    )
    return f"<!doctype html><html><head><meta charset='utf-8'></head><body>{html}</body></html>\n"


def write_outputs(
    out: Path,
    rows: pd.DataFrame,
    summary_frame: pd.DataFrame,
    exhaustive: Mapping[int, Mapping[str, Point]] | None = None,
    note: str = "",
    plots: bool = True,
) -> list[Path]:
    """bench.csv (per run), summary.csv, paired.csv (the default strategy against each other,
    over units), summary.md, bench.json and, with `plots`, bench.html, each written
    atomically; bench.json also lists the `exhaustive` points per profile (harness -> pass
    rate, $/task)."""
    out.mkdir(parents=True, exist_ok=True)
    paired = paired_frame(rows, DEFAULT) if (rows["variant"] == DEFAULT).any() else pd.DataFrame()
    payload = {
        "runs": json.loads(rows.to_json(orient="records")),
        "summary": json.loads(summary_frame.to_json(orient="records")),
        "exhaustive": {
            str(profile): {
                name: {"pass_rate": pass_rate, "cost_per_task": cost}
                for name, (pass_rate, cost) in points.items()
            }
            for profile, points in (exhaustive or {}).items()
        },
    }
    texts = {
        "bench.csv": rows.to_csv(index=False),
        "summary.csv": summary_frame.to_csv(index=False),
        "bench.json": json.dumps(payload, indent=2) + "\n",
        "paired.csv": paired.to_csv(index=False),
        "summary.md": summary_markdown(summary_frame, paired, note),
    }
    if plots:
        texts["bench.html"] = page(figures(rows, summary_frame))
    paths = []
    for name, text in texts.items():
        tmp = out / f".{name}.tmp"
        tmp.write_text(text)
        tmp.replace(out / name)
        paths.append(out / name)
    return paths
