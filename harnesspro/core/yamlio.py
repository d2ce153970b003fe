"""YAML text read and written with libyaml when PyYAML has it (the pure-Python parser and
emitter took ~30 ms per harness.yaml, paid at every catalog edit), and YAML a user wrote
loaded with alias expansion bounded.

`yaml.safe_load` builds an alias bomb ("billion laughs") cheaply, sharing each repeated node,
but whatever walks the result afterwards (path resolution, validation, dumping) sees every
copy and hangs. Here the composed node graph is measured first, each shared node counted once
per place it appears, and refused past a bound.
"""

from __future__ import annotations

from typing import Any

import yaml

LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_BASE_DUMPER: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BASE_DUMPER):  # type: ignore[valid-type,misc]
    """Writes a value shared by several places out in each place, never as an anchor and
    alias: a harness file stays readable, and the seed agent reads it without PyYAML."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


DUMPER: type[yaml.SafeDumper] = _Dumper

MAX_VALUES = 100_000
"""Most values (scalars, lists, mappings) a document may hold once its aliases are expanded."""


class YamlTooLarge(ValueError):
    """A document whose aliases expand past the bound, refer to themselves, or nest too deep;
    the message is a clause that completes "<file>: ..."."""


def load(text: str) -> Any:
    """`yaml.safe_load(text)`, with libyaml when available."""
    return yaml.load(text, Loader=LOADER)


def dump(data: Any) -> str:
    """`yaml.safe_dump(data, sort_keys=False)`, with libyaml when available."""
    return yaml.dump(data, Dumper=DUMPER, sort_keys=False)


def load_bounded(text: str, max_values: int = MAX_VALUES) -> Any:
    """`yaml.safe_load(text)`, raising YamlTooLarge instead of building a document that expands
    to more than `max_values` values, and yaml.YAMLError when the text is not YAML."""
    loader = LOADER(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _check_size(node, max_values)
        return loader.construct_document(node)
    except RecursionError:
        raise YamlTooLarge("its YAML nests too deep to read") from None
    finally:
        loader.dispose()


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_size(root: yaml.Node, limit: int) -> None:
    """Expanded size of the graph under `root`, iteratively (no recursion on deep input),
    memoised by node so a shared node is measured once."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # the current node's ancestors
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in _children(node))
            if sizes[key] > limit:
                raise YamlTooLarge(
                    f"its YAML aliases expand to more than {limit:,} values; write the "
                    "values out instead of nesting aliases"
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlTooLarge("a YAML alias refers to the value that holds it; remove it")
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)
