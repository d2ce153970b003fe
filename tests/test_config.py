from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.cli import main
from harnesspro.config import ConfigError, load_config


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    return path


def test_defaults_and_override(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "name: x\n"), ["evolution.epochs=5", "coreset.size=4"])
    assert config.evolution.epochs == 5
    assert config.coreset.size == 4
    assert config.selection.modes["lite"].alpha == 0.2


def test_unknown_key_names_the_key(tmp_path: Path) -> None:
    path = write(tmp_path, "evolution:\n  epochs: 2\n  epoch_count: 3\n")
    with pytest.raises(ConfigError, match=r"unknown key 'evolution\.epoch_count'"):
        load_config(path)


def test_wrong_type_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"key 'coreset\.size'"):
        load_config(write(tmp_path, "coreset:\n  size: many\n"))


def test_bad_override_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="key.path=value"):
        load_config(write(tmp_path, "name: x\n"), ["evolution.epochs"])


@pytest.mark.parametrize(
    "text, key",
    [("sandbox:\n  timeout: 3\n", "sandbox.timeout"), ("ray:\n  num_cpus: zero\n", "ray.num_cpus")],
)
def test_cli_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str
) -> None:
    run_dir = tmp_path / "run"
    code = main(["evolve", "--config", str(write(tmp_path, text)), "--run-dir", str(run_dir)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert key in err and err.count("\n") == 0
    assert not run_dir.exists()


def test_missing_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evolve", "--config", str(tmp_path / "nope.yaml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def test_unpriced_model_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "model:\n  name: no-such-model-xyz\n")
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(path), "--run-dir", str(run_dir)]) == 2
    assert "prices.no-such-model-xyz" in capsys.readouterr().err
    assert not run_dir.exists()
