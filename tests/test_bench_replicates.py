"""`harnesspro bench replicates`: runs of one strategy against the front of their union, against
a case worked by hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main


def row(profile: int, seed: int, hv: float, seed_pass: float) -> dict[str, object]:
    return {"variant": "a", "profile": profile, "run_seed": seed, "normalised_hv": hv,
            "seed_pass": seed_pass, "seed_cost": 1.0}  # fmt: skip


def bench(folder: Path, rows: list[dict[str, object]]) -> Path:
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "bench.csv", index=False)
    return folder


def test_replicates_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # profile 1: replicates at 0.9 and 0.6, the seed measured at 0.5 and 0.25 (cost 1,
    # reference cost 2): areas 0.5 and 0.25 against the front's 0.5, so (1 + 0.5) / 2 = 0.75;
    # its SD sqrt(2 x 0.125^2) = 0.177. Profile 2 (in a second bench): 1.0 and 0.8, the seed
    # the same twice: 1.0, SD 0. A profile whose seed never passed (3) has no area to compare
    # with: left out of that line alone.
    a = bench(tmp_path / "a", [row(1, 7, 0.9, 0.5), row(1, 8, 0.6, 0.25)])
    b = bench(tmp_path / "b", [row(2, 7, 1.0, 0.4), row(2, 8, 0.8, 0.4)])
    c = bench(tmp_path / "c", [row(3, 7, 0.5, 0.0), row(3, 8, 0.7, 0.0)])
    assert main(["bench", "replicates", str(a), str(b), str(c)]) == 0
    lines = capsys.readouterr().out.splitlines()
    cells = [line.strip("| ").split(" | ") for line in lines[2:]]
    means = {name: [n, figure.split(" [")[0]] for name, n, figure in cells}
    assert means["normalised HV of a replicate"] == ["3", f"{(0.75 + 0.9 + 0.6) / 3:.3f}"]
    assert means["the best replicate's"] == ["3", f"{(0.9 + 1.0 + 0.7) / 3:.3f}"]
    assert means["the worst replicate's"] == ["3", f"{(0.6 + 0.8 + 0.5) / 3:.3f}"]
    seed_alone = means["the seed point alone, against its own measurements"]
    assert seed_alone == ["2", f"{(0.75 + 1.0) / 2:.3f}"]
    assert means["SD of the seed's test pass rate"] == ["3", f"{0.125 * 2**0.5 / 3:.3f}"]


@pytest.mark.parametrize("case", ["one seed", "two strategies", "missing"])
def test_bad_input_is_one_sentence_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    rows = {
        "one seed": [row(1, 7, 0.9, 0.5), row(1, 8, 0.6, 0.25), row(2, 7, 1.0, 0.4)],
        "two strategies": [row(1, 7, 0.9, 0.5), {**row(1, 8, 0.6, 0.25), "variant": "b"}],
        "missing": [],
    }[case]
    folder = bench(tmp_path / "a", rows) if rows else tmp_path / "nowhere"
    assert main(["bench", "replicates", str(folder)]) == 2
    err = capsys.readouterr().err
    expected = {"one seed": "two or more run seeds", "two strategies": "one strategy",
                "missing": "no such folder"}  # fmt: skip
    assert expected[case] in err and len(err.strip().splitlines()) == 1
