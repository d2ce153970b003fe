"""Three-way merge of a harness's YAML config, key by key, for when git's line merge conflicts.

Catalog edits rewrite harness.yaml whole (yaml.safe_dump drops the seed's comments), so two
siblings that set different keys of the same parent's file conflict as lines though not as
data. Here a key takes the side that changed it; a key both sides changed differently (lists
are values: two additions to one hook list differ) is a real conflict.
"""

from __future__ import annotations

from typing import Any

from harnesspro.core import yamlio

MISSING: Any = object()
"""A key absent on one side (added or deleted there)."""


class MergeConflict(ValueError):
    """Both sides changed the same key differently."""


def merge_values(base: Any, ours: Any, theirs: Any, path: str = "") -> Any:
    """The three-way merge of one value; dicts merge key by key (MISSING = absent)."""
    if ours == theirs:
        return ours
    if ours == base:
        return theirs
    if theirs == base:
        return ours
    if isinstance(ours, dict) and isinstance(theirs, dict):
        before = base if isinstance(base, dict) else {}
        merged = {}
        for key in [*ours, *(k for k in theirs if k not in ours)]:
            value = merge_values(
                before.get(key, MISSING),
                ours.get(key, MISSING),
                theirs.get(key, MISSING),
                f"{path}.{key}",
            )
            if value is not MISSING:
                merged[key] = value
        return merged
    raise MergeConflict(f"{path.lstrip('.') or 'the whole file'} was changed on both sides")


def merge_yaml(base: str, ours: str, theirs: str) -> str:
    """The merged YAML text (written as the catalog edits write it); MergeConflict if none."""
    before, mine, other = (yamlio.load(text) or {} for text in (base, ours, theirs))
    return yamlio.dump(merge_values(before, mine, other))
