"""Reading JSON out of replies as real models write them. Standard library only: the editing
agent imports this file inside the sandbox, where nothing else of harnesspro is mounted.

`json_values(text)` returns every JSON object or array a reply holds, in order, after:

- dropping reasoning blocks (`<think>...</think>`, `<thinking>`, `<reasoning>`, and the text
  before a lone closing tag, as reasoning models print it) - code fences need no special
  case: the scan reads through them, and a fence inside a JSON string stays in the string;
- repairing what models get wrong: trailing commas, `//` comments, Python's `True`/`None`,
  backslashes that are not JSON escapes (`\\d` in a regex inside a code string), raw control
  characters inside strings, and single-quoted Python literals (`ast.literal_eval`);
- closing a value cut off by the output limit after its last complete item (the partial item
  is dropped, the complete ones kept).

The caller validates them from the last one back and takes the first that validates: the
final answer comes after the reasoning and the drafts.

`estimate_tokens(text)` is the tokenizer-free estimate the context budgets use;
`fit_conversation` cuts an agent's conversation to a budget, `calls_in_text` reads tool calls
a model wrote as text.
"""

import ast
import json
import math
import re
from typing import Any

CHARS_PER_TOKEN = 2.5
"""Characters per token of the estimate. English prose runs at 3.5-4 with the common
tokenizers, JSON and code lower (punctuation, digits and indentation): gemma-3's tokenizer
counted 2.55-2.8 characters per token on the synthesizer's, planner's and analyzer's prompts
of the llama.cpp acceptance run (3.6 on the editor's prose), so 2.5, an over-count for
prose that is the estimate's safety margin."""
MESSAGE_OVERHEAD = 8  # tokens of chat-template framing per message
KEEP_CHARS = 200  # a tool result or argument cut to fit keeps this much of its head
REASONING = re.compile(
    r"<(think|thinking|reasoning|reflection|analysis)>.*?(</\1>|$)", re.DOTALL | re.IGNORECASE
)
LONE_CLOSE = re.compile(r"^.*?</(think|thinking|reasoning)>", re.DOTALL | re.IGNORECASE)
ESCAPES = set('"\\/bfnrtu')
REGEX_ESCAPE = re.compile(r"(?<!\\)(?:\\\\)*\\[bf][A-Za-z0-9(\[\\]")
"""`\b` or `\f` before a word character: a regex's word boundary written without escaping
(`r'\berror\b'`), never a backspace or form feed, which nobody writes in code. In a value
that has one, every `\b` and `\f` is read as a backslash and the letter."""
PY_LITERALS = {"True": "true", "False": "false", "None": "null"}
OPENING = re.compile(r"[{\[]")
MAX_STARTS = 200  # opening brackets tried per reply (a reply of braces stays cheap)


def estimate_tokens(text: str) -> int:
    """Tokens of `text` by the documented estimate (CHARS_PER_TOKEN), rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def message_tokens(messages: list[dict[str, Any]], tools: Any = None) -> int:
    """The estimated prompt tokens of a chat request: every message's text and tool calls,
    the tool definitions, and the template's framing per message."""
    total = estimate_tokens(json.dumps(tools)) if tools else 0
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        total += estimate_tokens(text or "") + MESSAGE_OVERHEAD
        if message.get("tool_calls"):
            total += estimate_tokens(json.dumps(message["tool_calls"]))
    return total


def _cut(text: str) -> str:
    return text[:KEEP_CHARS] + f" [... {len(text) - KEEP_CHARS} chars cut to fit the window]"


def _arguments(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return loads(text)


def fit_conversation(messages: list[dict[str, Any]], limit: int | None, tools: Any) -> bool:
    """Cut an agent's conversation in place until its estimate fits `limit`, oldest first:
    long tool results, then long tool-call arguments (a file written whole); the system and
    task messages stay whole. False when it still does not fit."""
    if limit is None:
        return True
    for message in messages[2:]:
        if message_tokens(messages, tools) <= limit:
            return True
        content = message.get("content")
        if (
            message.get("role") == "tool"
            and isinstance(content, str)
            and len(content) > 2 * KEEP_CHARS
        ):
            message["content"] = _cut(content)
        for call in message.get("tool_calls") or []:
            args = _arguments(call.get("function", {}).get("arguments"))
            if isinstance(args, dict):
                short = {k: _cut(v) if isinstance(v, str) and len(v) > 2 * KEEP_CHARS else v
                         for k, v in args.items()}  # fmt: skip
                call["function"]["arguments"] = json.dumps(short)
    return message_tokens(messages, tools) <= limit


def strip_reasoning(text: str) -> str:
    """The reply without its reasoning blocks (an unclosed one runs to the end)."""
    text = REASONING.sub("", text)
    return LONE_CLOSE.sub("", text, count=1)


def _scan(text: str, start: int) -> tuple[int, list[str], list[int]]:
    """From an opening bracket at `start`: (the index after its matching close, or -1 when the
    text ends first; the brackets still open at the end; the offsets of commas at which the
    value could be cut back to complete items)."""
    stack: list[str] = []
    cuts: list[int] = []
    in_string = escaped = False
    for i in range(start, len(text)):
        c = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "{[":
            stack.append("}" if c == "{" else "]")
        elif c in "}]":
            if not stack or stack[-1] != c:
                return -1, [], []
            stack.pop()
            if not stack:
                return i + 1, [], []
        elif c == ",":
            cuts.append(i)
    return -1, stack, cuts


def _repair(segment: str) -> str:
    """Trailing commas and comments out, invalid escapes doubled, Python literals as JSON."""
    out: list[str] = []
    i, n, in_string = 0, len(segment), False
    regex = REGEX_ESCAPE.search(segment) is not None  # then every \b and \f is a regex's
    while i < n:
        c = segment[i]
        if in_string:
            if c == "\\":
                nxt = segment[i + 1] if i + 1 < n else ""
                valid = nxt in ESCAPES and (
                    nxt != "u" or re.fullmatch(r"[0-9a-fA-F]{4}", segment[i + 2 : i + 6])
                )
                if nxt in "bf" and regex:
                    valid = False
                out.append(c + nxt if valid else "\\\\")
                i += 2 if valid else 1
                continue
            in_string = c != '"'
            out.append(c)
        elif c == '"':
            in_string = True
            out.append(c)
        elif c == "," and re.match(r"\s*[}\]]", segment[i + 1 :]):
            pass
        elif segment.startswith("//", i):
            end = segment.find("\n", i)
            i = n if end < 0 else end
            continue
        elif c.isalpha() and (word := re.match(r"[A-Za-z]+", segment[i:])):
            out.append(PY_LITERALS.get(word.group(), word.group()))
            i += len(word.group())
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def loads(segment: str) -> Any:
    """A JSON value from `segment`, repaired when it does not parse as it is; None if neither
    it nor its repair nor a Python literal reading gives an object or array."""
    attempts = [segment, _repair(segment)]
    if REGEX_ESCAPE.search(segment):  # read `\b` as the regex it is, not as a backspace
        attempts.reverse()
    for attempt in attempts:
        try:
            value = json.loads(attempt, strict=False)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value
    try:
        value = ast.literal_eval(segment)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


def calls_in_text(
    text: str, names: Any, aliases: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Tool calls a reply wrote as JSON in its text instead of calling them: objects with a
    tool name under `name`, `tool` or `function` and arguments under `arguments`,
    `parameters` or `args`, as OpenAI-shaped tool calls. Names other than `names` go through
    `aliases` (e.g. create_file -> write_file) or are left out."""
    calls: list[dict[str, Any]] = []
    for value in json_values(text):
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, dict):
                continue
            name = item.get("name") or item.get("tool") or item.get("function")
            name = (aliases or {}).get(name, name) if isinstance(name, str) else None
            args = item.get("arguments", item.get("parameters", item.get("args", {})))
            if name in names and isinstance(args, (dict, str)):
                arguments = args if isinstance(args, str) else json.dumps(args)
                call = {"id": f"text-{len(calls)}", "type": "function"}
                calls.append({**call, "function": {"name": name, "arguments": arguments}})
    return calls


def _truncated(text: str, cuts: list[int], stack: list[str]) -> Any:
    """A value cut off by the output limit, closed after its last complete item."""
    for cut in reversed(cuts[-40:]):
        head = text[:cut]
        _, open_now, _ = _scan(head, 0)
        closers = "".join(reversed(open_now or stack))
        value = loads(head + closers)
        if value is not None:
            return value
    return None


def json_values(text: str) -> list[Any]:
    """Every JSON object or array in a reply, in order (see the module docstring)."""
    text = strip_reasoning(text)
    values: list[Any] = []
    i, tried = 0, 0
    while tried < MAX_STARTS:
        match = OPENING.search(text, i)
        if match is None:
            break
        start, tried = match.start(), tried + 1
        end, stack, cuts = _scan(text, start)
        if end > 0:
            value = loads(text[start:end])
            if value is not None:
                values.append(value)
                i = end
                continue
        elif stack:
            value = _truncated(text[start:], [c - start for c in cuts], stack)
            if value is not None:
                values.append(value)
                break
        i = start + 1
    return values
