"""Verifier evidence: the one-line reason of a failed verdict, kept in the ledger and the run
folder, and listed by the held-out evaluation."""

from __future__ import annotations

from pathlib import Path

from harnesspro.core.ledger import Ledger
from harnesspro.core.records import RolloutResult, RolloutSpec, Usage, VerifierEvidence
from harnesspro.evaluation.heldout import failed_verdicts
from harnesspro.run.folder import RunFolder
from harnesspro.tasks.runtime import failure_reason, telling_line
from harnesspro.tasks.verify import VerifierResult

PYTEST_OUTPUT = """============================= test session starts ==============================
collected 3 items

../tests/test_outputs.py::test_report_exists FAILED                      [ 33%]
../tests/test_outputs.py::test_report_format FAILED                      [ 66%]

=================================== FAILURES ===================================
    def test_report_exists():
>       assert Path("/app/report.json").exists(), "Report file not found"
E       AssertionError: Report file not found
=========================== short test summary info ============================
FAILED ../tests/test_outputs.py::test_report_exists - AssertionError: Report file not found
FAILED ../tests/test_outputs.py::test_report_format - FileNotFoundError: [Errno 2] No such file
============================== 2 failed in 0.12s ===============================
"""


def test_the_reason_is_pytests_first_failure() -> None:
    line = telling_line(PYTEST_OUTPUT)
    assert line == (
        "FAILED ../tests/test_outputs.py::test_report_exists"
        " - AssertionError: Report file not found"
    )
    result = VerifierResult(0.0, 1, False, "reward 0 from reward.txt", PYTEST_OUTPUT)
    assert failure_reason(result) == f"reward 0 from reward.txt: {line}"


def test_the_reason_of_a_plain_script_is_its_fail_line() -> None:
    output = "checking /workspace/out.csv\nFAIL: out.csv has 3 rows, expected 4\n"
    assert telling_line(output) == "FAIL: out.csv has 3 rows, expected 4"
    assert telling_line("") == ""
    assert telling_line("all good\nbut no reward written\n") == "but no reward written"


def evidence(passed: bool, reason: str) -> VerifierEvidence:
    return VerifierEvidence(passed, float(passed), 0 if passed else 1, False, reason, "tail", {})


def result(key: str, verdict: VerifierEvidence) -> RolloutResult:
    return RolloutResult(
        key, "ok", Usage(), 0.01, 1.0, 1, verdict.passed, "", "", {}, verifier=verdict
    )


def test_ledger_run_folder_and_eval_keep_the_reason(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    run = RunFolder(tmp_path)
    cases = [
        ("k1", "c000", "alpha", 0, evidence(False, "reward 0 from reward.txt: FAIL: x")),
        ("k2", "c000", "alpha", 1, evidence(True, "reward 1 from reward.txt")),
        ("k3", "c004", "beta", 0, evidence(False, "verifier timed out after 60 s")),
        ("k4", "c004", "alpha", 0, evidence(False, "not in the test split")),
    ]
    for key, cid, task, attempt, verdict in cases:
        split = "coreset" if key == "k4" else "test"
        ledger.record_rollout(
            RolloutSpec(key, cid, task, attempt, 1), result(key, verdict), key, split
        )
        run.save_rollout(result(key, verdict))
    assert run.verifier("k3") == cases[2][4]
    assert run.verifier("missing") is None
    lines = failed_verdicts(
        ledger.rollout_rows(), [("seed", "c000"), ("lite", "c004")], ["alpha", "beta"]
    )
    assert lines == [
        "  seed (c000) alpha attempt 0: reward 0 from reward.txt: FAIL: x",
        "  lite (c004) beta attempt 0: verifier timed out after 60 s",
    ]
