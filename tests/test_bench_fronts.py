"""`harnesspro bench fronts`: two bench outputs scored on one reference front, checked against
hypervolumes worked by hand; bad folders are one sentence and exit 2."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from harnesspro.cli import main

A = {"seed": (0.5, 1.0), "lite": (0.5, 0.5), "medium": (0.75, 1.0), "heavy": (1.0, 2.0)}
B = {"seed": (0.5, 1.0), "lite": (0.5, 1.0), "medium": (0.5, 1.0), "heavy": (1.0, 1.5)}


def bench(folder: Path, points: dict[str, tuple[float, float]]) -> Path:
    row = {"variant": "harnesspro", "profile": 1, "misleading": False, "rollouts": 80}
    for mode, (pass_rate, cost) in points.items():
        row |= {f"{mode}_pass": pass_rate, f"{mode}_cost": cost}
    folder.mkdir()
    pd.DataFrame([row]).to_csv(folder / "bench.csv", index=False)
    return folder


def test_two_benches_on_one_front(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = bench(tmp_path / "a", A), bench(tmp_path / "b", B)
    assert main(["bench", "fronts", f"a={a}", f"b={b}"]) == 0
    out = capsys.readouterr().out
    # Reference point: pass 0 at cost 2 x the seed's 1.0 = 2 (a's heavy at 2.0 adds nothing).
    # The union's front (0.5, 0.5), (0.75, 1.0), (1.0, 1.5) covers
    # 1.5 x 0.5 + 1 x 0.25 + 0.5 x 0.25 = 1.125; a's points cover 1.5 x 0.5 + 1 x 0.25 = 1.0
    # and b's 1 x 0.5 + 0.5 x 0.5 = 0.75.
    assert f"| harnesspro@a | {1.0 / 1.125:.3f}" in out
    assert f"| harnesspro@b | {0.75 / 1.125:.3f}" in out
    assert "| 80 | 1/0/0 |" in out  # a beats b on the one profile
    # and the paired difference over that one unit
    assert f"| harnesspro@a - harnesspro@b (normalised_hv) | 1 | {0.25 / 1.125:+.3f}" in out


def test_the_default_can_be_another_bench_and_a_plain_folder_keeps_its_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = bench(tmp_path / "a", A), bench(tmp_path / "b", B)
    assert main(["bench", "fronts", str(a), f"b={b}", "--default", "harnesspro@b"]) == 0
    out = capsys.readouterr().out
    assert f"| harnesspro@b - harnesspro (normalised_hv) | 1 | {-0.25 / 1.125:+.3f}" in out


@pytest.mark.parametrize("case", ["missing", "empty", "default"])
def test_bad_input_is_one_sentence_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    a = bench(tmp_path / "a", A)
    argv = {
        "missing": [f"a={tmp_path / 'nowhere'}"],
        "empty": [f"a={tmp_path}"],  # a folder, but no bench.csv in it
        "default": [f"a={a}", "--default", "rho"],
    }[case]
    assert main(["bench", "fronts", *argv]) == 2
    err = capsys.readouterr().err
    expected = {"missing": "no such folder", "empty": "no bench.csv", "default": "--default rho"}
    assert expected[case] in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_an_analysis_option_on_a_bench_run_is_one_sentence(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--default", "harnesspro@a"]) == 2
    assert "--default belongs to `harnesspro bench fronts`" in capsys.readouterr().err
