"""Frozen synthesized tests: majority of clean seed rollouts, never official tests."""

from __future__ import annotations

import json

from harnesspro.improvers.testsynth.consensus import Voter, refine
from harnesspro.improvers.testsynth.facts import snapshot_facts
from harnesspro.improvers.testsynth.offline import (
    SeedRollout,
    SynthTest,
    is_clean,
    named_paths,
    score,
    synthesize,
)

INSTRUCTION = "Count lines of `/workspace/in.txt` into `/workspace/out.txt` and `/workspace/dir`."


def trajectory(*events: tuple[str, str]) -> str:
    lines = []
    for kind, text in events:
        field = "command" if kind == "tool_call" else "output"
        lines.append(json.dumps({"type": kind, "step": 1, field: text}))
    return "\n".join(lines)


CLEAN = trajectory(("tool_call", "wc -l in.txt"), ("tool_result", "3"))
RETRIED = trajectory(
    ("tool_call", "wcc -l in.txt"),
    ("tool_result", "bash: wcc: command not found"),
    ("tool_call", "wc -l in.txt"),
    ("tool_result", "3"),
)
BROKEN = trajectory(("tool_call", "wcc -l in.txt"), ("tool_result", "bash: wcc: command not found"))


def test_named_paths_are_relative_to_workdir() -> None:
    assert named_paths(INSTRUCTION, "/workspace") == ["dir", "in.txt", "out.txt"]


def test_clean_means_every_failure_was_retried() -> None:
    assert is_clean(CLEAN) and is_clean(RETRIED) and not is_clean(BROKEN)


def test_only_clean_rollouts_vote() -> None:
    good = {"in.txt": b"a\nb\nc\n", "out.txt": b"3\n", "dir/x": b"1"}
    bad = {"in.txt": b"a\nb\nc\n", "out.txt": b"", "dir/x": b"1"}
    seed = [SeedRollout(bad, BROKEN), SeedRollout(good, CLEAN), SeedRollout(good, CLEAN)]
    test = synthesize("t", INSTRUCTION, "/workspace", seed)
    assert score(test, good) and not score(test, bad)
    assert not score(test, {k: v for k, v in good.items() if k != "dir/x"})
    assert SynthTest.from_json(test.to_json()) == test


def test_a_lone_clean_rollout_votes_weakly_and_search_consensus_overrules_it() -> None:
    good = {"in.txt": b"a\nb\nc\n", "out.txt": b"3\n", "dir/x": b"1"}
    bad = {"in.txt": b"a\nb\nc\n", "out.txt": b"2\n", "dir/x": b"1"}
    seed = [SeedRollout(bad, BROKEN), SeedRollout(bad, BROKEN), SeedRollout(good, CLEAN)]
    test = synthesize("t", INSTRUCTION, "/workspace", seed)
    content = next(c for c in test.checks if c.aspect == "content:out.txt")
    assert (content.support, content.of) == (1, 1)  # the clean one alone: a weak check
    assert score(test, good) and not score(test, bad)  # the broken two cannot outvote it
    # four judged-clean search rollouts agree on "2": the weak check gives way
    voters = [Voter(snapshot_facts(bad, test.reading, None), True)] * 4
    refined = refine(test, voters)
    assert score(refined, bad) and not score(refined, good)
    assert next(c for c in refined.checks if c.aspect == "content:out.txt").support == 4


def test_disagreement_falls_back_to_existence() -> None:
    a = {"out.txt": b"1"}
    b = {"out.txt": b"2"}
    test = synthesize(
        "t",
        "Write `/workspace/out.txt`.",
        "/workspace",
        [SeedRollout(a, CLEAN), SeedRollout(b, CLEAN)],
    )
    assert not any(c.aspect.startswith("content:") for c in test.checks)
    assert score(test, {"out.txt": b"anything"}) and not score(test, {})


def test_archives_compare_by_members_not_timestamps() -> None:
    import io
    import tarfile
    import time

    def archive(mtime: float, body: bytes) -> bytes:
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            info = tarfile.TarInfo("a.log")
            info.size, info.mtime = len(body), mtime
            tar.addfile(info, io.BytesIO(body))
        return buffer.getvalue()

    first, later = archive(time.time(), b"x"), archive(time.time() + 60, b"x")
    assert first != later
    test = synthesize(
        "t",
        "Pack `/workspace/b.tar.gz`.",
        "/workspace",
        [SeedRollout({"b.tar.gz": first}, CLEAN)] * 2,
    )
    assert score(test, {"b.tar.gz": later})
    assert not score(test, {"b.tar.gz": archive(time.time(), b"y")})


def test_a_trajectory_cut_by_a_size_cap_is_still_read() -> None:
    cut = CLEAN[5:] + "\n" + BROKEN[:-10]  # a partial first and last line
    assert is_clean(cut) and not is_clean(cut + "\n" + BROKEN)


def test_fields_that_agree_are_checked_when_the_whole_document_does_not() -> None:
    one = {"report.json": b'{"total": 30, "regions": {"N": 10, "S": 20}, "at": "09:00"}'}
    two = {"report.json": b'{"regions": {"S": 20, "N": 10}, "total": 30, "at": "09:05"}'}
    test = synthesize(
        "t", "Write `/workspace/report.json`.", "/workspace",
        [SeedRollout(one, CLEAN), SeedRollout(two, CLEAN)],
    )  # fmt: skip
    aspects = {c.aspect for c in test.checks}
    assert "content:report.json" not in aspects  # the two documents differ (the time)
    assert {"field:report.json:total", "field:report.json:regions.N"} <= aspects
    assert "field:report.json:at" not in aspects
    assert score(test, {"report.json": b'{"total": 30, "regions": {"N": 10, "S": 20}, "at": 1}'})
    assert not score(test, {"report.json": b'{"total": 31, "regions": {"N": 10, "S": 20}}'})
