"""Slips a scorer has to work for: each quiet kind spoils an output in a real shell with no
error output and exit 0 (contents worked by hand), the kind follows the profile's mix, and
the policy neither notices a quiet slip at once nor misses one its final check catches."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harnesspro.execution.fakes import slips
from harnesspro.execution.fakes.behaviour import BehaviourProfile, ProfileError, load_profile
from harnesspro.execution.fakes.sampling import sample_profile
from harnesspro.execution.fakes.scripted import plan_actions
from harnesspro.execution.fakes.task_script import script_for
from harnesspro.execution.fakes.traits import Traits
from harnesspro.tasks.loader import builtin_suite_dir, load_task
from tests.test_policy import QUIET, SCRIPT, STEPS

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
PLAIN = Traits(concise=False, verify=False, direct=False, effort="medium")


def spoil(tmp_path: Path, kind: str, text: str) -> tuple[str, str]:
    out = tmp_path / "out.csv"
    out.write_text(text)
    done = subprocess.run(
        ["bash", "-c", slips.corruption(kind, str(out))], capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    moved = tmp_path / "out_final.csv"
    return (out.read_text() if out.exists() else ""), (moved.read_text() if moved.exists() else "")


@pytest.mark.parametrize(
    ("kind", "before", "after"),
    [
        ("wrong_value", "name,n\nab,19\ncd,22\n", "name,n\nab,20\ncd,22\n"),
        ("wrong_value", "alpha\nbeta\n", "beta\nalpha\n"),
        ("off_by_one", "x\ny\nz\n", "x\ny\n"),
        ("off_by_one", "42\n", "42\n42\n"),
        ("missing_rows", "h\n1\n2\n3\n4\n", "h\n2\n4\n"),
        ("missing_rows", "a b c\n", "a b \n"),
    ],
)
def test_quiet_kinds_spoil_an_output_silently(
    tmp_path: Path, kind: str, before: str, after: str
) -> None:
    assert spoil(tmp_path, kind, before) == (after, "")


def test_wrong_name_moves_the_output(tmp_path: Path) -> None:
    assert spoil(tmp_path, "wrong_name", "a\n") == ("", "a\n")


def test_a_missing_output_is_left_alone_without_an_error(tmp_path: Path) -> None:
    for kind in slips.ON_OUTPUT:
        done = subprocess.run(
            ["bash", "-c", slips.corruption(kind, str(tmp_path / "none.txt"))],
            capture_output=True,
            text=True,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_kind_follows_the_mix() -> None:
    mix = {"typo": 1.0, "skip": 3.0}  # typo below u = 0.25, skip above
    assert [slips.choose(mix, u, True) for u in (0.1, 0.3, 0.99)] == ["typo", "skip", "skip"]
    assert slips.choose({"off_by_one": 1.0}, 0.5, has_outputs=False) == "typo"


def test_a_quiet_slip_is_not_noticed_at_once_but_a_final_check_catches_it() -> None:
    quiet = QUIET.model_copy(
        update={"p_slip": 1.0, "p_notice": 1.0, "slip_kinds": {"off_by_one": 1}}
    )
    actions = plan_actions(SCRIPT, PLAIN, "q", quiet)
    assert [a.kind for a in actions] == ["step"] * 5 + ["quiet"]
    assert actions[-1].command.startswith(STEPS[-1] + "\n")
    assert "sed -i '$d' /workspace/out0.txt" in actions[-1].command
    checked = quiet.model_copy(update={"p_verify": 1.0, "verify_catch": 1.0})
    after = plan_actions(SCRIPT, PLAIN, "q", checked)
    assert [a.kind for a in after[6:]] == ["verify"] + ["step"] * 6  # rerun from step 0
    assert [a.command for a in after[7:]] == list(STEPS)


def test_a_skipped_step_runs_a_listing_instead() -> None:
    skip = QUIET.model_copy(update={"p_slip": 1.0, "slip_kinds": {"skip": 1}})
    actions = plan_actions(SCRIPT, PLAIN, "s", skip)  # the slip rate is capped at 0.95
    assert len(actions) == len(STEPS)
    assert all(a.command in (step, "ls /workspace") for a, step in zip(actions, STEPS, strict=True))
    assert [a.kind for a in actions].count("quiet") >= 4


def test_sampled_profiles_mix_typos_with_quiet_kinds(tmp_path: Path) -> None:
    for seed in range(1, 6):
        mix = sample_profile(seed).slip_kinds
        assert set(mix) == set(slips.KINDS) and sum(mix.values()) == pytest.approx(1, abs=0.01)
        assert 0.2 <= mix["typo"] <= 0.6
    assert BehaviourProfile().slip_kinds == {"typo": 1.0}  # the quickstart's world as it was
    bad = tmp_path / "p.yaml"
    bad.write_text("slip_kinds: {typos: 1}\n")
    with pytest.raises(ProfileError, match="slip_kinds"):
        load_profile(bad)


def test_slips_spoil_only_files_inside_the_working_folder(monkeypatch) -> None:
    """passwd_shell_report's instruction names /etc/passwd and /bin/sh: a slip that spoiled
    them renamed the host's /bin/sh under the `local` backend. Over every built-in task and
    a profile whose every step slips in an output-spoiling way, each spoiled path lies under
    the working folder."""
    passwd = script_for(load_task(builtin_suite_dir() / "passwd_shell_report"))
    assert {"/etc/passwd", "/bin/sh"} <= set(passwd.outputs)
    assert not {"/etc/passwd", "/bin/sh"} & set(passwd.own_outputs())
    spoiled: list[str] = []
    real = slips.corruption
    monkeypatch.setattr(slips, "corruption", lambda k, p: spoiled.append(p) or real(k, p))
    spoiling = {k: (1.0 if k in slips.ON_OUTPUT else 0.0) for k in slips.KINDS}
    profile = BehaviourProfile(p_slip=1.0, slip_kinds=spoiling)
    for folder in sorted(builtin_suite_dir().iterdir()):
        script = script_for(load_task(folder))
        spoiled.clear()
        for seed in range(6):
            plan_actions(script, PLAIN, f"s{seed}", profile)
        assert spoiled or not script.own_outputs(), folder.name
        outside = [p for p in spoiled if not p.startswith(script.workdir + "/")]
        assert not outside, (folder.name, outside)
