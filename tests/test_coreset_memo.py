"""Coresets remembered across processes: a second draw of the same texts and size reads the
first one's file, and a file that does not hold a valid draw is drawn again and replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harnesspro.tasks import coreset, coreset_memo
from harnesspro.tasks.coreset_memo import memo_key, remembered_coreset

TEXTS = [
    "sort the csv by price and write the top rows",
    "sort the csv by price and keep the top rows",
    "count the words in every log file",
    "rename the images by their date",
]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESSPRO_CACHE", str(tmp_path))
    return tmp_path / "coresets"


def test_a_second_draw_reads_the_first(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = remembered_coreset(TEXTS, 2)
    assert drawn == coreset.select_coreset(TEXTS, 2)
    assert json.loads((cache / f"{memo_key(TEXTS, 2)}.json").read_text()) == drawn

    def never(*_: object) -> list[int]:
        raise AssertionError("drawn again")

    monkeypatch.setattr(coreset, "select_coreset", never)
    assert remembered_coreset(TEXTS, 2) == drawn


def test_the_key_follows_texts_and_size() -> None:
    # indices refer to positions, so the order of the texts is part of the key
    keys = {
        memo_key(TEXTS, 2),
        memo_key(TEXTS, 3),
        memo_key(TEXTS[:3], 2),
        memo_key(TEXTS[::-1], 2),
    }
    assert len(keys) == 4
    assert memo_key(TEXTS, 2) == memo_key(tuple(TEXTS), 2)


@pytest.mark.parametrize("stored", ["[7, 0]", "[0, 0]", "[0]", "not json", '{"a": 1}'])
def test_an_invalid_file_is_drawn_again_and_replaced(cache: Path, stored: str) -> None:
    path = cache / f"{memo_key(TEXTS, 2)}.json"
    path.parent.mkdir(parents=True)
    path.write_text(stored)
    drawn = remembered_coreset(TEXTS, 2)
    assert drawn == coreset.select_coreset(TEXTS, 2)
    assert json.loads(path.read_text()) == drawn


def test_an_unwritable_cache_still_draws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("HARNESSPRO_CACHE", str(tmp_path / "file"))  # not a folder
    assert remembered_coreset(TEXTS, 2) == coreset.select_coreset(TEXTS, 2)
    assert coreset_memo.cache_root() == tmp_path / "file"
