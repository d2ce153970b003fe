"""World v3's source is written against a model's behaviour, not against the catalog: no file
of its package, nor any execution.fakes module it imports, names a catalog mechanism, carries
a hook marker of the seed harness or repeats a sentence or a five-word phrase of a catalog
prompt or a seed hook's message. The forbidden texts are collected from the catalog and the
seed at test time."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import harnesspro
from harnesspro.harness.mechanisms import catalog

PACKAGE = Path(harnesspro.__file__).parent
WORLD = PACKAGE / "execution" / "world"
SEED_AGENT = PACKAGE / "harness" / "seed" / "agent"
FAKES = "harnesspro.execution.fakes"
SHINGLE = 5


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _imported_fakes(path: Path) -> set[Path]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            file = PACKAGE.parent / (name.replace(".", "/") + ".py")
            if name.startswith(FAKES) and file.exists():
                found.add(file)
    return found


def world_sources() -> set[Path]:
    """The world package and, transitively, the fakes modules it imports."""
    todo = set(WORLD.glob("*.py"))
    done: set[Path] = set()
    while todo:
        path = todo.pop()
        done.add(path)
        todo |= _imported_fakes(path) - done
    return done


def _strings(path: Path, skip: frozenset[str] = frozenset()) -> list[str]:
    """Non-docstring string constants (f-string pieces too), leaving out assignments to
    `skip` (the hooks' failure marks: the shell's error texts, which hooks read)."""
    tree = ast.parse(path.read_text())
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    skipped = {
        id(c)
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign) and any(getattr(t, "id", "") in skip for t in n.targets)
        for c in ast.walk(n.value)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
        and id(n) not in docs and id(n) not in skipped
    ]  # fmt: skip


def hook_markers() -> set[str]:
    """Bracketed tags the seed's hooks and loop write (`[guard`, `[repair`, `[repeated`...)."""
    texts = _strings(SEED_AGENT / "hooks.py") + _strings(SEED_AGENT / "__main__.py")
    return {m.lower() for t in texts for m in re.findall(r"\[[A-Za-z]+\b", t)}


def hook_phrases() -> set[str]:
    """The seed hooks' messages and notes, as word sequences: three words or more, two inside
    a bracketed note (`[... N lines (M characters) omitted ...]`)."""
    texts = _strings(SEED_AGENT / "hooks.py", frozenset({"FAILURE_MARKS"}))
    texts += [t for t in _strings(SEED_AGENT / "__main__.py") if re.search(r"\[[a-z]+\]", t)]
    found = set()
    for text in texts:
        least = 2 if re.search(r"[\[\]]", text) else 3
        for piece in re.split(r"[.:;!?]", text):
            if len(w := words(piece)) >= least:
                found.add(" ".join(w))
    return found


def prompt_phrases() -> set[str]:
    """Sentences and five-word phrases of every catalog prompt text (the catalog module's
    text constants and the string parameters of its entries)."""
    texts = [v for k, v in vars(catalog).items() if k.isupper() and isinstance(v, str)]
    for mechanism in catalog.CATALOG.values():
        texts += [v for v in mechanism.params.values() if isinstance(v, str)]
    found = set()
    for text in texts:
        for sentence in re.split(r"[.:;!?]\s", text):
            w = words(sentence)
            if len(w) >= 4:
                found.add(" ".join(w))
            found |= {" ".join(w[i : i + SHINGLE]) for i in range(len(w) - SHINGLE + 1)}
    return found


def test_the_collected_lists_are_not_empty() -> None:
    """So the test below fails for the right reason when the catalog or the seed moves."""
    assert {"[guard", "[repair", "[notice", "[hint"} <= hook_markers()
    assert any("characters" in p and "omitted" in p for p in hook_phrases())
    assert any("verify your work" in p for p in prompt_phrases())
    assert "verify_before_submit" in catalog.CATALOG
    assert WORLD / "policy.py" in world_sources()
    assert PACKAGE / "execution" / "fakes" / "task_script.py" in world_sources()


def test_world_v3_source_names_no_mechanism_marker_or_catalog_wording() -> None:
    names = set(catalog.CATALOG)
    markers, phrases = hook_markers(), hook_phrases() | prompt_phrases()
    problems = []
    for path in sorted(world_sources()):
        raw = path.read_text().lower()
        flat = " " + " ".join(words(raw)) + " "
        problems += [f"{path.name}: mechanism {n}" for n in names if n in raw]
        problems += [
            f"{path.name}: mechanism {n}" for n in names if f" {n.replace('_', ' ')} " in flat
        ]
        problems += [f"{path.name}: marker {m}" for m in markers if m in raw]
        problems += [f"{path.name}: phrase '{p}'" for p in phrases if f" {p} " in flat]
    assert not problems, problems


def test_the_check_would_catch_a_world_that_mirrors_the_catalog() -> None:
    """v2's phrase and profile modules name markers and levers: the same check flags them."""
    fakes = PACKAGE / "execution" / "fakes"
    raw = (fakes / "phrases.py").read_text().lower() + (fakes / "sampling.py").read_text()
    assert any(m in raw for m in hook_markers())
    assert any(n in raw for n in catalog.CATALOG)
