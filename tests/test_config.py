from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from harnesspro.cli import main
from harnesspro.core.config import RunConfig, load_config
from harnesspro.core.config_base import ConfigError
from harnesspro.run.folder import RunFolder


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


COMMITTED = Path(__file__).resolve().parents[1] / "coresets" / "quickstart.json"


def test_coreset_size_disagreeing_with_the_manifest_exits_2_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    fixed = len(json.loads(COMMITTED.read_text())["splits"]["coreset"])
    prices = "prices:\n  scripted: {input: 1.0, output: 1.0}\n"
    config = write(tmp_path, f"{prices}tasks:\n  suite: builtin\n  manifest: {COMMITTED}\n")
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(config), "--run-dir", str(run_dir)]
    assert main([*argv, "--set", f"coreset.size={fixed + 1}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"coreset.size is {fixed + 1}" in err and str(COMMITTED) in err
    assert f"coreset of {fixed} tasks" in err
    assert not run_dir.exists()


@pytest.mark.parametrize(
    ("key", "recorded"), [("test_fraction", "test_fraction"), ("split_seed", "seed")]
)
def test_a_split_setting_the_manifest_overrides_exits_2_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, recorded: str
) -> None:
    import json

    written = json.loads(COMMITTED.read_text())["settings"][recorded]
    other = 0.4 if key == "test_fraction" else written + 7
    prices = "prices:\n  scripted: {input: 1.0, output: 1.0}\n"
    config = write(tmp_path, f"{prices}tasks:\n  suite: builtin\n  manifest: {COMMITTED}\n")
    run_dir = tmp_path / "run"
    argv = ["evolve", "--config", str(config), "--run-dir", str(run_dir)]
    assert main([*argv, "--set", f"tasks.{key}={other}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0
    assert f"tasks.{key} is {other}" in err and str(COMMITTED) in err
    assert f"written with {recorded} {written}" in err
    assert not run_dir.exists()


def test_a_split_setting_that_matches_the_manifest_or_is_unset_is_accepted(tmp_path: Path) -> None:
    import json

    from harnesspro.run.context import check_split_settings

    settings = json.loads(COMMITTED.read_text())["settings"]
    base = f"tasks:\n  suite: builtin\n  manifest: {COMMITTED}\n"
    same = [
        f"tasks.test_fraction={settings['test_fraction']}",
        f"tasks.split_seed={settings['seed']}",
    ]
    check_split_settings(load_config(write(tmp_path, base), same), settings, COMMITTED)
    check_split_settings(load_config(write(tmp_path, base)), {}, COMMITTED)  # defaults only
    with pytest.raises(ConfigError, match="records no such setting"):
        check_split_settings(load_config(write(tmp_path, base), same[:1]), {}, COMMITTED)


def test_relative_paths_resolve_against_the_config_files_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "project" / "configs"
    folder.mkdir(parents=True)
    path = folder / "run.yaml"
    path.write_text(
        "tasks:\n  suite: [../suites/a, /abs/b, builtin]\n  manifest: ../coresets/m.json\n"
        "evolution:\n  improver_model: {upstream: replay, replay_log: replies.jsonl}\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(path)
    project = (tmp_path / "project").resolve()
    assert config.tasks.suite == [str(project / "suites/a"), "/abs/b", "builtin"]
    assert config.tasks.manifest == project / "coresets/m.json"
    assert config.evolution.improver_model.replay_log == folder.resolve() / "replies.jsonl"
    # An override typed in a shell stays relative to the working directory.
    assert load_config(path, ["tasks.suite=here"]).tasks.suite == "here"


def test_a_missing_suite_is_named_by_its_resolved_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "cfg"
    folder.mkdir()
    config = folder / "run.yaml"
    config.write_text(
        "prices:\n  scripted: {input: 1.0, output: 1.0}\ntasks:\n  suite: ../missing\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["evolve", "--config", str(config), "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path.resolve() / 'missing'}: task suite folder not found" in err


def test_a_run_folder_written_before_a_key_existed_resumes_only_with_the_same_settings(
    tmp_path: Path,
) -> None:
    config = load_config(write(tmp_path, "name: old\n"))
    run = RunFolder(tmp_path / "run")
    run.open(config)
    # As an older harnesspro wrote it: without the `reports` section (a key added later).
    text = (run.root / "config.yaml").read_text()
    older = yaml.safe_load(text)
    del older["reports"]
    (run.root / "config.yaml").write_text(yaml.safe_dump(older, sort_keys=False))
    RunFolder(run.root).open(config)  # the same settings: resumed
    data = config.model_dump(mode="json")
    data["reports"]["dashboard"] = "end"
    with pytest.raises(ConfigError, match="different config"):
        RunFolder(run.root).open(RunConfig.model_validate(data))


EASY_FIVE = ["add_script", "sum_numbers", "word_count", "make_dirs", "sort_names"]


def test_tasks_include_keeps_only_the_named_tasks_for_the_splits(tmp_path: Path) -> None:
    from harnesspro.run.context import choose_tasks

    names = "[" + ", ".join(EASY_FIVE) + "]"
    config = load_config(write(tmp_path, f"tasks:\n  suite: easy\n  include: {names}\n"))
    chosen = choose_tasks(config)
    splits = chosen.splits
    assert set(chosen.tasks) == set(EASY_FIVE)
    assert sorted((*splits.coreset, *splits.validation, *splits.test)) == sorted(EASY_FIVE)


@pytest.mark.parametrize(
    ("include", "said"),
    [
        ("[sum_numbers, no_such_task]", "tasks.include names 'no_such_task'"),
        ("[]", "tasks.include is an empty list"),
    ],
)
def test_a_bad_tasks_include_exits_2_in_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], include: str, said: str
) -> None:
    prices = "prices:\n  scripted: {input: 1.0, output: 1.0}\n"
    config = write(tmp_path, f"{prices}tasks:\n  suite: easy\n  include: {include}\n")
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(config), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and said in err
    assert not run_dir.exists()


def test_tasks_include_beside_a_manifest_exits_2_naming_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = "prices:\n  scripted: {input: 1.0, output: 1.0}\n"
    tasks = f"tasks:\n  suite: builtin\n  manifest: {COMMITTED}\n  include: [fix_lru_cache]\n"
    text = prices + tasks
    run_dir = tmp_path / "run"
    assert main(["evolve", "--config", str(write(tmp_path, text)), "--run-dir", str(run_dir)]) == 2
    err = capsys.readouterr().err.strip()
    assert "tasks.include" in err and str(COMMITTED) in err and err.count("\n") == 0
    assert not run_dir.exists()
