"""The seed agent's harness.yaml reader (agent/config.py) against PyYAML: on the seed, on
genomes of the catalog applied to it, and on hand-written corner cases, it returns exactly
what `yaml.safe_load` returns, or leaves the file to PyYAML."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from harnesspro.harness.mechanisms.catalog import CATALOG
from harnesspro.run.context import seed_template

sys.path.insert(0, str(seed_template()))
from agent.config import NotSimple, load, simple  # noqa: E402

sys.path.remove(str(seed_template()))


def genome_texts(tmp_path: Path, count: int) -> list[str]:
    """harness.yaml of the seed with each mechanism alone, then `count` random genomes."""
    rng = np.random.default_rng(7)
    names = list(CATALOG)
    genomes = [[n] for n in names]
    genomes += [[n for n in names if rng.random() < 0.5] for _ in range(count)]
    texts = []
    for i, genome in enumerate(genomes):
        tree = tmp_path / f"g{i}"
        shutil.copytree(seed_template(), tree)
        for name in genome:
            if not {"high_effort", "low_effort"} <= set(genome) or name != "low_effort":
                CATALOG[name].apply(tree)
        texts.append((tree / "harness.yaml").read_text())
    return texts


def test_the_seed_and_catalog_genomes_read_as_pyyaml_reads_them(tmp_path: Path) -> None:
    seed = (seed_template() / "harness.yaml").read_text()
    assert repr(simple(seed)) == repr(yaml.safe_load(seed))
    texts = genome_texts(tmp_path, 40)
    fast = 0
    for text in texts:
        assert repr(load(text)) == repr(yaml.safe_load(text))
        try:
            assert repr(simple(text)) == repr(yaml.safe_load(text))
            fast += 1
        except NotSimple:
            pass
    assert fast == len(texts)  # every file the catalog writes is read without PyYAML


CORNERS = [
    "a: yes\n",
    "a: On\n",
    "a: 1.5\n",
    "a: 012\n",
    "a: 1_000\n",
    "a: 0x1F\n",
    "a: 2001-12-14\n",
    "a: ~\n",
    "a: Null\n",
    "a: .inf\n",
    "a: +1\n",
    'a: "x"\n',
    "a: &x {b: 1}\nc: *x\n",
    "a: [1, 2]\n",
    "a: |\n  text\n",
    "a: b: c\n",
    "a: b #c\n",
    "a: b#c\n",
    "a: 'it''s'\n",
    "a: ''\n",
    "a: 'one\n  two'\n",
    "a: 'one\n\n  two'\n",
    "a: 'one #two'\n",
    "a: 'one\n  #two'\n",
    "a: don't\n",
    "a:\n- 1\n- b: 2\n  c: x y\n- - 3\n",
    "a:\n- 1\n- b: 2\n  c: x y\nd:\n  e: []\n  f: {}\n",
    "a:\n  - 1\n  -   2\n",
    "a:\n  b:\n    c: -0\n  d:\n",
    "a: 1\na: 2\n",
    "yes: 1\n",
    "---\na: 1\n",
    "a:\tb\n",
    "a: b  c\n",
    "- a\n- 'b'\n",
    "a: 'x'\n  b: 1\n",
    "a:\n  b: 1\n c: 2\n",
    "a:\n  b:\n- x\n",
    "a:\n  b:\n  - x\n  c: 1\n",
    "",
    "# only a comment\n",
]


@pytest.mark.parametrize("text", CORNERS)
def test_a_corner_case_reads_as_pyyaml_reads_it_or_goes_to_pyyaml(text: str) -> None:
    try:
        expected = yaml.safe_load(text)
    except yaml.YAMLError:
        with pytest.raises((NotSimple, yaml.YAMLError)):
            load(text)
        return
    try:
        got = simple(text)
    except NotSimple:
        return
    assert repr(got) == repr(expected)
