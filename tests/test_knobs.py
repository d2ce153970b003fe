"""[[knob]] tables: parsed strictly (a bad field is one sentence naming the file and the
field, exit 2), and each kind of knob applied as an edit of its file, compared against a
hand-written expected file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harnesspro.core.knobs import Knob, KnobError, load_knobs, parse_knobs
from harnesspro.harness.knob_files import add_item, read_value, write_value
from harnesspro.harness.validate import static_problem

GOOD = {"name": "steps", "file": "config.yaml", "key": "agent.steps", "type": "int",
        "values": [5, 10], "lever": "step cap"}  # fmt: skip


def manifest(*tables: dict[str, Any]) -> dict[str, Any]:
    return {"harness": {"command": ["x"], "immutable": ["harness.toml", "run.py"]},
            "knob": list(tables)}  # fmt: skip


def test_a_good_table_parses_into_a_knob() -> None:
    (knob,) = parse_knobs(manifest(GOOD))
    assert knob == Knob("steps", "config.yaml", "int", "step cap", "agent.steps", "", (5, 10))
    assert parse_knobs({"harness": {"command": ["x"]}}) == ()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"lever": "vibes"}, "lever"),
        ({"type": "number"}, "type"),
        ({"name": "Steps"}, "name"),
        ({"file": "../outside.yaml"}, "file"),
        ({"file": "run.py"}, "file"),  # immutable
        ({"file": "notes.md"}, "key"),  # a key needs YAML, TOML or JSON
        ({"key": "agent..steps"}, "key"),
        ({"marker": "STEPS"}, "key"),  # key and marker exclude each other
        ({"values": [5, "ten"]}, "values"),
        ({"values": []}, "values"),
        ({"values": [5, 5]}, "values"),
        ({"colour": "red"}, "colour"),
        ({"key": None, "file": "prompt.md", "marker": "P"}, "type"),  # a marker knob is text
    ],
)
def test_each_bad_field_is_named_in_one_sentence(change: dict[str, Any], field: str) -> None:
    table = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    with pytest.raises(KnobError) as caught:
        parse_knobs(manifest(table), "h/harness.toml")
    message = str(caught.value)
    assert message.startswith("h/harness.toml: [[knob]] 1") and f"'{field}'" in message
    assert "\n" not in message


def test_duplicate_names_and_a_missing_file_or_marker_are_refused(tmp_path: Path) -> None:
    with pytest.raises(KnobError, match="'name' repeats"):
        parse_knobs(manifest(GOOD, GOOD))
    (tmp_path / "harness.toml").write_text(
        '[harness]\ncommand = ["x"]\n[[knob]]\nname = "p"\nfile = "p.md"\nmarker = "P"\n'
        'type = "text"\nlever = "prompt"\n'
    )
    with pytest.raises(KnobError, match="'file' names p.md, which is missing"):
        load_knobs(tmp_path)
    (tmp_path / "p.md").write_text("no markers here\n")
    with pytest.raises(KnobError, match="'marker' needs one line with 'BEGIN P'"):
        load_knobs(tmp_path)


def test_a_bad_manifest_as_the_run_seed_exits_2_with_one_sentence(tmp_path: Path) -> None:
    (tmp_path / "harness.toml").write_text(
        '[harness]\ncommand = ["x"]\n[[knob]]\nname = "s"\nfile = "c.yaml"\nkey = "s"\n'
        'type = "int"\nlever = "speed"\n'
    )
    (tmp_path / "c.yaml").write_text("s: 1\n")
    config = Path(__file__).parents[1] / "configs" / "quickstart.yaml"
    done = subprocess.run(
        [sys.executable, "-m", "harnesspro", "evolve", "--config", str(config),
         "--set", f"harness.seed={tmp_path}", "--dry-run"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    assert "harness.toml: [[knob]] 1 (s) field 'lever'" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def knob(**fields: Any) -> Knob:
    return Knob(**{"name": "k", "lever": "prompt", **fields})


YAML_BEFORE = "agent:\n  steps: 50\n  name: mini\nlimits: {}\n"
YAML_AFTER = "agent:\n  steps: 15\n  name: mini\nlimits:\n  cost: 0.5\n"
TOML_BEFORE = '# settings\n[agent]\nsteps = 50  # calls\nname = "mini"\n\n[env]\ntimeout = 30\n'
TOML_AFTER = (
    '# settings\n[agent]\nsteps = 15\nname = "mini"\n\n[env]\ntimeout = 30\nmode = "text"\n'
)
PY_BEFORE = 'PROMPT = """\n# BEGIN prompt\nBe helpful.\n# END prompt\n"""\nSTEPS = 3\n'
PY_AFTER = 'PROMPT = """\n# BEGIN prompt\nBe brief.\nAct.\n# END prompt\n"""\nSTEPS = 3\n'


def test_a_yaml_key_knob_edits_its_key_and_creates_missing_tables(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(YAML_BEFORE)
    steps = knob(file="c.yaml", key="agent.steps", type="int")
    write_value(tmp_path, steps, 15)
    write_value(tmp_path, knob(file="c.yaml", key="limits.cost", type="float"), 0.5)
    assert (tmp_path / "c.yaml").read_text() == YAML_AFTER
    assert read_value(tmp_path, steps) == 15
    assert read_value(tmp_path, knob(file="c.yaml", key="agent.absent", type="int")) is None


def test_a_toml_key_knob_rewrites_one_line_and_keeps_comments(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(TOML_BEFORE)
    write_value(tmp_path, knob(file="c.toml", key="agent.steps", type="int"), 15)
    write_value(tmp_path, knob(file="c.toml", key="env.mode", type="str"), "text")
    assert (tmp_path / "c.toml").read_text() == TOML_AFTER


def test_a_json_key_knob(tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text('{"agent": {"steps": 50}}')
    write_value(tmp_path, knob(file="c.json", key="agent.steps", type="int"), 7)
    assert (tmp_path / "c.json").read_text() == '{\n  "agent": {\n    "steps": 7\n  }\n}\n'


def test_a_marker_knob_replaces_only_its_region(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(PY_BEFORE)
    prompt = knob(file="agent.py", marker="prompt", type="text")
    assert read_value(tmp_path, prompt) == "Be helpful.\n"
    write_value(tmp_path, prompt, "Be brief.\nAct.")
    assert (tmp_path / "agent.py").read_text() == PY_AFTER


def test_a_whole_file_knob(tmp_path: Path) -> None:
    (tmp_path / "system.md").write_text("old\n")
    write_value(tmp_path, knob(file="system.md", type="text"), "new prompt\n")
    assert (tmp_path / "system.md").read_text() == "new prompt\n"


def test_list_items_go_last_and_set_items_stay_sorted(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text("hooks: [{use: b}, {use: a}]\nextra: [z.md]\n")
    hooks = knob(file="c.yaml", key="hooks", type="list")
    extra = knob(file="c.yaml", key="extra", type="set")
    add_item(tmp_path, hooks, {"use": "b"})  # an equal item moves last
    add_item(tmp_path, hooks, {"use": "c"})
    add_item(tmp_path, extra, "a.md")
    add_item(tmp_path, extra, "z.md")
    assert (tmp_path / "c.yaml").read_text() == (
        "hooks:\n- use: a\n- use: b\n- use: c\nextra:\n- a.md\n- z.md\n"
    )
    assert json.loads(json.dumps(read_value(tmp_path, extra))) == ["a.md", "z.md"]


def test_harness_validate_names_a_bad_knob(tmp_path: Path) -> None:
    (tmp_path / "harness.toml").write_text(
        '[harness]\ncommand = ["x"]\n[[knob]]\nname = "s"\nfile = "c.yaml"\nkey = "s"\n'
        'type = "integer"\nlever = "step cap"\n'
    )
    (tmp_path / "c.yaml").write_text("s: 1\n")
    assert static_problem(tmp_path, None) == (
        "harness.toml: [[knob]] 1 (s) field 'type' must be one of int, float, bool, str, text, "
        "list, set, not 'integer'"
    )
