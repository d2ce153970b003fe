"""Reading harness.yaml without importing PyYAML when the file is simple.

`import yaml` costs about 25 ms of CPU, paid by every rollout's fresh interpreter: more than
the rest of the agent's imports. The files the seed and the catalog's edits write are block
mappings and lists of plain words, numbers, booleans, `[]`, `{}` and single-quoted text, which
`simple()` reads here. Anything else (anchors, double quotes, flow collections with content,
block scalars, YAML 1.1's yes/no/on/off, floats, dates...) raises `NotSimple` and the file is
read by PyYAML, so the result is always what `yaml.safe_load` returns.
"""

import re

KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?: +|$)(.*)$")
WORD = re.compile(r"[A-Za-z/][A-Za-z0-9_./-]*(?: [A-Za-z0-9_./-]+)*")
INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
CONSTANTS = {"true": True, "false": False, "null": None}
YAML11_WORDS = {"yes", "no", "on", "off", "y", "n", "true", "false", "null"}


class NotSimple(ValueError):
    """A construct `simple()` leaves to PyYAML."""


def load(text):
    """`yaml.safe_load(text)`, without PyYAML when the text is simple."""
    try:
        return simple(text)
    except NotSimple:
        import yaml  # noqa: PLC0415 - only files beyond the simple subset pay for it

        return yaml.safe_load(text)


def _lines(text):
    """(raw line number, indent, content, whether a comment was cut) of each line holding
    something."""
    out = []
    for number, raw in enumerate(text.split("\n")):
        if "\t" in raw or ("'" in raw and "#" in raw):
            raise NotSimple("a tab, or a comment mark beside a quote")
        body = raw if "'" in raw else re.sub(r"(^| )#.*$", "", raw)
        body = body.rstrip()
        if body.strip():
            content = body.lstrip(" ")
            out.append((number, len(body) - len(content), content, body != raw.rstrip()))
    return out


def simple(text):
    """The document when it is in the simple subset, else NotSimple."""
    lines = _lines(text)
    if not lines:
        return None
    value, end = _block(lines, 0, lines[0][1])
    if end != len(lines):
        raise NotSimple("content after the document")
    return value


def _is_item(content):
    return content == "-" or content.startswith("- ")


def _block(lines, i, indent):
    """A mapping or list starting at line i, indented by `indent`; (value, next line)."""
    return (_list if _is_item(lines[i][2]) else _mapping)(lines, i, indent)


def _mapping(lines, i, indent):
    out = {}
    while i < len(lines) and lines[i][1] == indent and not _is_item(lines[i][2]):
        match = KEY.fullmatch(lines[i][2])
        if not match or match.group(1) in out or match.group(1).lower() in YAML11_WORDS:
            raise NotSimple(f"not a plain key: {lines[i][2]!r}")
        key, rest = match.groups()
        following = lines[i + 1] if i + 1 < len(lines) else None
        if rest:
            out[key], i = _scalar(rest, lines, i + 1, indent)
        elif following and (
            following[1] > indent or (following[1] == indent and _is_item(following[2]))
        ):
            out[key], i = _block(lines, i + 1, following[1])
        else:
            out[key], i = None, i + 1
    if i < len(lines) and lines[i][1] > indent:
        raise NotSimple("unexpected indentation")
    return out, i


def _list(lines, i, indent):
    out = []
    while i < len(lines) and lines[i][1] == indent and _is_item(lines[i][2]):
        item = lines[i][2][2:]
        if not item or item != item.lstrip():
            raise NotSimple("a list item on its own line, or spaced out")
        if KEY.fullmatch(item):  # `- key: value`, the item's other keys below at indent + 2
            number, _, _, cut = lines[i]
            shifted = [(number, indent + 2, item, cut), *lines[i + 1 :]]
            value, used = _mapping(shifted, 0, indent + 2)
            i += used
        else:
            value, i = _scalar(item, lines, i + 1, indent)
        out.append(value)
    return out, i


def _scalar(text, lines, i, indent):
    """A scalar and the next line (a quoted one may go on over more-indented lines)."""
    if text.startswith("'"):
        return _quoted(text, lines, i, indent)
    if text in ("[]", "{}"):
        return ([] if text == "[]" else {}), i
    if text in CONSTANTS:
        return CONSTANTS[text], i
    if INT.fullmatch(text):
        return int(text), i
    if WORD.fullmatch(text) and text.lower() not in YAML11_WORDS:
        return text, i
    raise NotSimple(f"not a simple scalar: {text!r}")


def _quoted(text, lines, i, indent):
    """A single-quoted scalar: `''` is a quote; a line break between words is a space."""
    parts = [text[1:]]
    previous = lines[i - 1][0]
    while _closing(parts[-1]) < 0:
        if i >= len(lines) or lines[i][0] != previous + 1 or lines[i][1] <= indent or lines[i][3]:
            raise NotSimple("a quote that does not close on the next lines")
        previous = lines[i][0]
        parts.append(lines[i][2])
        i += 1
    joined = " ".join(parts)
    end = _closing(joined)
    if joined[end + 1 :].strip():
        raise NotSimple("text after a quoted scalar")
    return joined[:end].replace("''", "'"), i


def _closing(text):
    """Index of the closing quote in `text` (after the opening one), else -1."""
    j = 0
    while j < len(text):
        if text[j] == "'":
            if text[j + 1 : j + 2] != "'":
                return j
            j += 1
        j += 1
    return -1
