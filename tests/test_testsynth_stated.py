"""Checks the instruction states, and the line facts they compare: hand-read instructions and
hand-counted files."""

from __future__ import annotations

from harnesspro.improvers.testsynth.check import INSTRUCTION, Check
from harnesspro.improvers.testsynth.facts import Reading, read_instruction, text_facts
from harnesspro.improvers.testsynth.offline import SeedRollout, failures, score, synthesize
from harnesspro.improvers.testsynth.stated import stated_checks

MANIFEST = (
    "Move the logs into `/workspace/backup/logs.tar.gz`.\n\n"
    "- Write `/workspace/backup/manifest.txt` listing the same relative paths, one per line, "
    "sorted in byte order (`LC_ALL=C sort`), each line ending with a newline.\n"
    "- Save the distinct user names to `/workspace/users.txt`, exactly 3 lines.\n"
    "- Write a summary to `/workspace/report.json`. Its keys are sorted by name.\n"
)


def aspects(checks: tuple[Check, ...]) -> dict[str, str]:
    return {c.aspect: c.value for c in checks}


def test_the_properties_each_sentence_states() -> None:
    reading = read_instruction(MANIFEST, "/workspace")
    checks = stated_checks(MANIFEST, reading)
    assert aspects(checks) == {
        "exists:backup/logs.tar.gz": "True",
        "nonempty:backup/logs.tar.gz": "True",  # a file asked for holds an answer
        "nonempty:backup/manifest.txt": "True",
        "nonempty:users.txt": "True",
        "nonempty:report.json": "True",
        "exists:backup/manifest.txt": "True",
        "ascending:backup/manifest.txt": "True",
        "newline:backup/manifest.txt": "True",
        "exists:users.txt": "True",
        "unique:users.txt": "True",
        "lines:users.txt": "3",
        "exists:report.json": "True",
        "parses:report.json": "True",
    }
    assert all(c.kind == INSTRUCTION and c.support == 0 for c in checks)
    source = next(c.source for c in checks if c.aspect == "ascending:backup/manifest.txt")
    assert source.startswith("Write `/workspace/backup/manifest.txt` listing")
    assert "users.txt" not in source  # the next item speaks of another output


def test_an_order_by_a_field_or_within_a_line_is_not_a_line_order() -> None:
    text = (
        "Write `/workspace/clusters.txt` with one line per cluster: its host names sorted in "
        "byte order. Order the lines by cluster size descending.\n"
        "Write `/workspace/clean.csv`: the rows sorted by email in byte order.\n"
    )
    checks = aspects(stated_checks(text, read_instruction(text, "/workspace")))
    assert not any(a.startswith(("ascending:", "descending:")) for a in checks)


def test_a_descending_order_of_lines() -> None:
    text = "Write `/workspace/top.txt` listing the scores, one per line, in descending order.\n"
    checks = aspects(stated_checks(text, read_instruction(text, "/workspace")))
    assert checks["descending:top.txt"] == "True" and "ascending:top.txt" not in checks


def test_line_facts_counted_by_hand() -> None:
    reading = Reading("/workspace", ("a.txt", "t.csv"))
    facts = text_facts("a.txt", b"b\nA\nc\n\n", reading)
    # three non-blank lines, no repeat; in order ignoring case (A, b, c), not in byte order
    assert facts["lines:a.txt"] == "3" and facts["unique:a.txt"] == "True"
    assert facts["ascending:a.txt"] == "False"  # b, A, c: in no order
    assert text_facts("a.txt", b"A\nb\nc\n", reading)["ascending:a.txt"] == "True"
    assert text_facts("a.txt", b"a\nB\nc\n", reading)["ascending:a.txt"] == "True"  # by case
    numbers = text_facts("a.txt", b"9 x\n10 y\n2 z\n", reading)
    assert numbers["ascending:a.txt"] == "False" and numbers["descending:a.txt"] == "False"
    assert text_facts("a.txt", b"2 z\n9 x\n10 y\n", reading)["ascending:a.txt"] == "True"
    csv = text_facts("t.csv", b"name,n\nb,1\nb,1\n", reading)
    assert csv["lines:t.csv"] == "2" and csv["unique:t.csv"] == "False"  # header left out


def test_a_stated_order_fails_an_unsorted_output_whatever_the_seed_did() -> None:
    text = "Write `/workspace/names.txt` listing the names, one per line, sorted alphabetically.\n"
    # both seed rollouts wrote the names unsorted, so the seed's votes agree on the wrong order
    seed = [SeedRollout({"names.txt": b"bob\nann\n"}, "")] * 2
    test = synthesize("t", text, "/workspace", seed)
    assert not score(test, {"names.txt": b"bob\nann\n"})
    assert [c.aspect for c in failures(test, {"names.txt": b"bob\nann\n"})] == [
        "ascending:names.txt"
    ]
    # sorted but not what the seed wrote: the seed's content vote fails it; its vote for the
    # opposite order (bob, ann) gives way to the stated order
    assert [c.aspect for c in failures(test, {"names.txt": b"ann\nbob\n"})] == ["content:names.txt"]
