"""Writes the messy-reply replay suite (tests/replies/<role>.jsonl): replies to the planner,
analyzer, synthesizer and editing agent in the styles real models answer in - reasoning
preambles (`<think>` blocks, a lone `</think>`), code fences, prose after the JSON, drafts
before the final answer, cut-off output, refusals, Python literals, trailing commas, stray
backslashes in code, percentages, names and levers in other words, a plan missing, a field
out of range, a wrapper object, a bare list.

Each line: {"id", "style", "content" (or "tool_calls" for the editor), "expect"}. `expect` is
written here by hand from what the reply says, not by running the parser: the plans,
diagnoses or tool name a careful reader would take from it (0 / null when nothing usable is in
it). Run `python tests/replies/write_replies.py` to rewrite the files after editing this one;
`scripts/replay_replies.py` scores them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TASKS = ["csv_report", "log_filter", "backup_rotation"]


def plan(directive: str, name: str, levers: list[str], change: str = "", **extra: Any) -> dict:
    return {
        "directive": directive, "name": name, "levers": levers, "scope": "invariant",
        "change": change, "files": ["harness.yaml"],
        "rationale": extra.pop("rationale", f"{name}: the diagnoses point at it"),
        "predicted_pass": extra.pop("predicted_pass", 0.0),
        "predicted_cost": extra.pop("predicted_cost", -0.1), **extra,
    }  # fmt: skip


COST = plan("cost-first", "compress_output", ["context management"], predicted_cost=-0.25)
BAL = plan(
    "balanced", "notice-after-six-calls", ["step cap"],
    "Add an on_tool_result hook that appends a notice after 6 tool calls: 'You have used 6 "
    "tool calls; verify and finish.'", predicted_pass=0.02, predicted_cost=-0.1,
)  # fmt: skip
PERF = plan(
    "performance-first", "verify_before_submit", ["answer extraction"], predicted_pass=0.05,
    predicted_cost=0.1, expected_flips=["csv_report"],
)  # fmt: skip
THREE = {"plans": [COST, BAL, PERF]}


def dumps(value: Any, indent: int | None = 2) -> str:
    return json.dumps(value, indent=indent)


def fenced(text: str, lang: str = "json") -> str:
    return f"```{lang}\n{text}\n```"


def planner() -> list[tuple[str, str, int]]:
    """(style, content, expected usable plans): the shapes replies come in."""
    full = dumps(THREE)
    return [
        ("plain", full, 3),
        ("preamble+fence", "Here are my three plans for c000:\n\n" + fenced(full), 3),
        ("think+fence", "<think>\nThe parent spends most tokens on {tool outputs}. A plan per "
         "directive: {cost, balanced, perf}.\n</think>\n\n" + fenced(full), 3),
        ("lone-close-think", "Okay, so the diagnoses say long_tool_output {3 of 3}... "
         "let me plan.\n</think>\n" + full, 3),
        ("trailing-prose", fenced(full) + "\n\nLet me know if you want {more} plans!", 3),
        ("prose-both-sides", "Sure! Based on the inputs, I propose:\n" + dumps(THREE, None)
         + "\nThese target cost first, then {pass rate}.", 3),
        ("trailing-commas", full.replace('"csv_report"\n', '"csv_report",\n')
         .replace("-0.25\n", "-0.25,\n"), 3),
        ("python-literals", str(THREE), 3),
        ("truncated", full[: full.index('"performance-first"') + 25], 2),
        ("truncated-in-fence", "```json\n" + full[: full.rindex('"predicted_pass"')], 2),
        ("refusal", "I'm sorry, but I can't help with modifying agent harnesses.", 0),
        ("empty", "", 0),
        ("draft-then-final", "Draft:\n" + dumps({"plans": [{"directive": "cost-first"}]})
         + "\n\nFinal answer:\n" + fenced(full), 3),
        ("schema-echo-then-answer", 'The schema is {"plans": [...]}. My answer:\n' + full, 3),
        ("uppercase-fence+comments", "```JSON\n" + full.replace(
            '"plans": [', '"plans": [ // one per directive') + "\n```", 3),
    ]  # fmt: skip


def planner_fields() -> list[tuple[str, str, int]]:
    """Replies whose fields are written otherwise (the planner's second half)."""
    full = dumps(THREE)
    long_why = "The analyzer saw long outputs in every rollout. " * 40
    words = [
        {**COST, "levers": ["Tool output truncation"]},
        {**BAL, "levers": ["max steps / tool-call budget"]},
        {**PERF, "levers": ["Final answer verification"]},
    ]
    spelled = [
        {**COST, "directive": "Cost First"},
        {**BAL, "directive": "balanced approach"},
        {**PERF, "directive": "PERFORMANCE_FIRST"},
    ]
    return [
        ("bare-list", dumps([COST, BAL, PERF]), 3),
        ("wrapper-object", dumps({"response": THREE}), 3),
        ("percentages", dumps({"plans": [
            {**COST, "predicted_cost": "-25%"}, {**BAL, "predicted_pass": "+2%"}, PERF]}), 3),
        ("numbers-as-strings", dumps({"plans": [
            {**COST, "predicted_cost": "-0.25"}, BAL, {**PERF, "predicted_pass": "0.05"}]}), 3),
        ("levers-in-other-words", dumps({"plans": words}), 3),
        ("directives-spelled-otherwise", dumps({"plans": spelled}), 3),
        ("one-plan-missing", dumps({"plans": [COST, PERF]}), 2),
        ("bad-field-in-one-plan", dumps({"plans": [COST, {**BAL, "predicted_pass": "high"},
                                                  PERF]}), 2),
        ("over-long-rationale", dumps({"plans": [{**COST, "rationale": long_why}, BAL, PERF]}), 3),
        ("name-with-spaces", dumps({"plans": [COST, {**BAL, "name": "Notice After 6 Calls"},
                                              PERF]}), 3),
        ("prediction-out-of-range", dumps({"plans": [COST, BAL, {**PERF, "predicted_cost": 9}]}),
         3),
        ("fence-inside-string", dumps({"plans": [COST, {**BAL, "change": BAL["change"]
                                        + "\n```yaml\nhooks:\n  on_tool_result: []\n```"}, PERF]}),
         3),
        ("excluded-name", dumps({"plans": [{**COST, "name": "concise_prompt", "change": ""},
                                           BAL, PERF]}), 2),
        ("flips-outside-coreset", dumps({"plans": [COST, BAL, {**PERF, "expected_flips":
                                         ["task-7", "csv_report"]}]}), 3),
        ("single-plan-object", dumps(BAL), 1),
        ("answer-tags", "<answer>\n" + full + "\n</answer>", 3),
        ("all-plans-invalid", dumps({"plans": [{"directive": "cost-first", "idea": "faster"}]}),
         0),
        ("crlf-lines", full.replace("\n", "\r\n"), 3),
        ("long-reasoning-untagged", "Let me think step by step. The parent c000 fails "
         "csv_report once {1 of 3}; cost is dominated by tool output. Options: (a) compress, "
         "(b) notices, (c) verify.\n\nFinal:\n" + fenced(full), 3),
        ("lever-as-string", dumps({"plans": [{**COST, "levers": "context management"}, BAL,
                                             PERF]}), 3),
    ]  # fmt: skip


DIAG = {
    "task_id": "csv_report", "kind": "long_tool_output", "count": 2, "of": 2,
    "effect_pass": -0.05, "effect_cost": 0.3, "evidence": "k00 step 3 and k01 step 4 print "
    "the whole 9,000-line log with cat",
}  # fmt: skip
DIAG2 = {
    "task_id": "log_filter", "kind": "repeated_commands", "count": 1, "of": 2,
    "effect_pass": 0.0, "effect_cost": 0.1, "evidence": "k10 runs `ls -la` three times",
}  # fmt: skip
TWO = {"diagnoses": [DIAG, DIAG2]}


def analyzer() -> list[tuple[str, str, int]]:
    full = dumps(TWO)
    regex = {**DIAG2, "evidence": "k10 greps with '\\d+\\.\\d+' three times"}
    return [
        ("plain", full, 2),
        ("preamble+fence", "Diagnoses for c000:\n" + fenced(full), 2),
        ("think", "<think>Looking at {tasks}... csv_report prints the whole log.</think>" + full,
         2),
        ("lone-close-think", "Let me check each task {a, b}.\n</think>\n\n" + fenced(full), 2),
        ("trailing-prose", full + "\nOverall the harness wastes tokens on {outputs}.", 2),
        ("trailing-commas", full.replace('"of": 2,\n', '"of": 2,\n').replace(
            "with cat\"\n", "with cat\",\n"), 2),
        ("python-literals", str({**TWO, "excerpt": None}), 2),
        ("truncated", full[: full.index('"log_filter"') + 5], 1),
        ("refusal", "I cannot determine problems from this data.", 0),
        ("empty-object", "{}", 0),
        ("kind-in-words", dumps({"diagnoses": [{**DIAG, "kind": "Long tool output"}, DIAG2]}), 2),
        ("percent-effects", dumps({"diagnoses": [{**DIAG, "effect_cost": "30%"}, DIAG2]}), 2),
        ("count-above-of", dumps({"diagnoses": [{**DIAG, "count": 3}, DIAG2]}), 2),
        ("over-long-evidence", dumps({"diagnoses": [{**DIAG, "evidence": "cat log; " * 200},
                                                    DIAG2]}), 2),
        ("unknown-task-in-one", dumps({"diagnoses": [DIAG, {**DIAG2, "task_id": "t9"}]}), 1),
        ("bad-field-in-one", dumps({"diagnoses": [{**DIAG, "count": "twice"}, DIAG2]}), 1),
        ("bare-list", dumps([DIAG, DIAG2]), 2),
        ("wrapper-object", dumps({"analysis": TWO}), 2),
        ("draft-then-final", dumps({"diagnoses": [{"task_id": "csv_report"}]}) + "\nRevised:\n"
         + full, 2),
        ("effect-out-of-range", dumps({"diagnoses": [{**DIAG, "effect_cost": 12}, DIAG2]}), 2),
        ("backslash-in-evidence", dumps({"diagnoses": [DIAG, regex]}).replace("\\\\", "\\"), 2),
        ("uppercase-fence", "```JSON\n" + full + "\n```", 2),
        ("comments", full.replace('"diagnoses": [', '"diagnoses": [ // two findings'), 2),
        ("excerpt-request", 'I need to see one rollout first.\n{"excerpt": "k00"}', 1),
        ("numbers-as-strings", dumps({"diagnoses": [{**DIAG, "count": "2", "of": "2"}, DIAG2]}),
         2),
        ("single-diagnosis-object", dumps(DIAG), 1),
        ("markdown-only", "**Problems**\n- csv_report: long outputs\n- log_filter: repeats", 0),
        ("answer-tags", "<answer>" + full + "</answer>", 2),
        ("truncated-in-fence", "```json\n" + full[: full.rindex('"effect_pass"')], 1),
        ("extra-fields", dumps({"diagnoses": [{**DIAG, "severity": "high"}, DIAG2],
                                "summary": "two problems"}), 2),
        ("crlf-lines", full.replace("\n", "\r\n"), 2),
        ("long-reasoning-untagged", "Step 1: csv_report rollouts print {9,000 lines}. Step 2: "
         "log_filter repeats ls.\nSo:\n" + full, 2),
        ("python-literal-with-none", str({"diagnoses": [DIAG, DIAG2], "excerpt": None}), 2),
    ]  # fmt: skip


SHELL = (
    "#!/bin/bash\nset -e\ntest -f /workspace/report.csv\n"
    "head -1 /workspace/report.csv | grep -q '^name,total$'\n"
    "rows=$(tail -n +2 /workspace/report.csv | grep -cE '^[a-z]+,[0-9]+(\\.[0-9]+)?$')\n"
    '[ "$rows" -ge 3 ]\n'
)
PYTEST = (
    "import csv\nimport re\n\n\ndef test_report():\n"
    "    rows = list(csv.DictReader(open('/workspace/report.csv')))\n"
    "    assert len(rows) >= 3\n"
    "    assert all(re.fullmatch(r'\\d+(\\.\\d+)?', r['total']) for r in rows)\n"
)


def synthesizer() -> list[tuple[str, str, str | None]]:
    shell = {"kind": "shell", "code": SHELL, "rationale": "checks the header and the rows"}
    py = {"kind": "pytest", "code": PYTEST, "rationale": "reads the CSV"}
    raw_backslashes = dumps(shell).replace("\\\\", "\\")  # a model that escaped nothing
    return [
        ("plain-shell", dumps(shell), "shell"),
        ("plain-pytest", dumps(py), "pytest"),
        ("preamble+fence", "Here is the test:\n" + fenced(dumps(shell)), "shell"),
        ("think", "<think>The task wants report.csv with {name,total}.</think>\n" + dumps(py),
         "pytest"),
        ("lone-close-think", "So I should check rows {>= 3}.\n</think>\n" + dumps(shell),
         "shell"),
        ("trailing-prose", dumps(shell) + "\nThis test fails if {report.csv} is missing.",
         "shell"),
        ("backslashes-unescaped", raw_backslashes, "shell"),
        ("pytest-backslashes-unescaped", dumps(py).replace("\\\\", "\\"), "pytest"),
        ("kind-bash", dumps({**shell, "kind": "bash"}), "shell"),
        ("kind-python", dumps({**py, "kind": "python"}), "pytest"),
        ("kind-missing-shell", dumps({"code": SHELL}), "shell"),
        ("kind-missing-pytest", dumps({"code": PYTEST}), "pytest"),
        ("fenced-bash-only", "I'll write a shell test:\n" + fenced(SHELL, "bash"), "shell"),
        ("fenced-python-only", fenced(PYTEST, "python") + "\nRun it with pytest.", "pytest"),
        ("raw-newlines-in-string", '{"kind": "shell", "code": "' + SHELL.replace('"', '\\"')
         .replace("\\.", "\\\\.") + '"}', "shell"),
        ("trailing-comma", dumps(shell).replace('"checks the header and the rows"\n',
                                                 '"checks the header and the rows",\n'), "shell"),
        ("python-literal-dict", str(py), "pytest"),
        ("truncated-code", dumps(shell)[:120], None),
        ("refusal", "I can't write a test without seeing the official tests.", None),
        ("draft-then-final", dumps({"kind": "shell"}) + "\nFixed:\n" + dumps(shell), "shell"),
        ("wrapper-object", dumps({"test": py}), "pytest"),
        ("uppercase-fence", "```JSON\n" + dumps(py) + "\n```", "pytest"),
        ("fence-in-code-string", dumps({**shell, "rationale": "see ```bash``` above"}), "shell"),
        ("answer-tags", "<answer>" + dumps(shell) + "</answer>", "shell"),
        ("sh-fence-with-prose", "Test:\n```sh\n" + SHELL + "```\nDone.", "shell"),
        ("extra-fields", dumps({**py, "confidence": 0.8, "notes": ["reads csv"]}), "pytest"),
        ("kind-sh", dumps({**shell, "kind": "sh"}), "shell"),
        ("kind-pytest-caps", dumps({**py, "kind": "PyTest"}), "pytest"),
        ("json-and-fence", dumps(py) + "\n\nOr as a file:\n" + fenced(PYTEST, "python"),
         "pytest"),
        ("empty-code", dumps({"kind": "shell", "code": ""}), None),
        ("crlf-lines", dumps(shell).replace("\n", "\r\n"), "shell"),
        ("long-reasoning-untagged", "The instruction asks for report.csv {name,total}. The "
         "seed wrote 3 rows.\nAnswer:\n" + dumps(shell), "shell"),
        ("bare-code-key-fence", "```json\n" + dumps({"code": PYTEST, "kind": "py"}) + "\n```",
         "pytest"),
    ]  # fmt: skip


YAML_EDIT = (
    'hooks:\n  on_tool_result:\n    - {use: notice, after: 6, message: "Verify and finish."}\n'
)
HOOK = "import re\n\nERROR = re.compile(r'\\berror\\b', re.I)\n"


def call(name: str, **args: str) -> dict[str, Any]:
    return {"name": name, "arguments": args}


def native(name: str, arguments: str) -> dict[str, Any]:
    return {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}


def say(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def calls(*tool_calls: dict[str, Any], text: str = "") -> dict[str, Any]:
    return {"role": "assistant", "content": text, "tool_calls": list(tool_calls)}


WRITE = call("write_file", path="harness.yaml", content=YAML_EDIT)
REPLACE = call("replace_in_file", path="harness.yaml", old="max_steps: 50", new="max_steps: 30")
RAW_HOOK = json.dumps(call("write_file", path="agent/my_hooks.py", content=HOOK)["arguments"])
RAW_HOOK = RAW_HOOK.replace("\\\\", "\\")  # a model that escaped no backslash


def editor() -> list[tuple[str, dict[str, Any], str | None]]:
    """(style, assistant message, the tool the reply calls)."""
    write, raw_hook = WRITE, RAW_HOOK
    return [
        ("native", calls(native("read_file", '{"path": "harness.yaml"}')), "read_file"),
        ("native-trailing-comma", calls(native("read_file", '{"path": "harness.yaml",}')),
         "read_file"),
        ("native-unescaped-backslash", calls(native("write_file", raw_hook)), "write_file"),
        ("native-python-literal", calls(native("bash", "{'command': 'ls agent'}")), "bash"),
        ("native-with-think-text", calls(native("run_checks", "{}"),
                                         text="<think>check it</think>"), "run_checks"),
        ("native-empty-arguments", calls(native("run_checks", "")), "run_checks"),
        ("hermes-tags", say("<tool_call>\n" + dumps(write) + "\n</tool_call>"), "write_file"),
    ] + editor_text()  # fmt: skip


def editor_text() -> list[tuple[str, dict[str, Any], str | None]]:
    """Replies that write their tool call in their text."""
    write, replace, raw_hook = WRITE, REPLACE, RAW_HOOK
    return [
        ("fenced-json", say("I'll edit the config.\n" + fenced(dumps(replace))),
         "replace_in_file"),
        ("think-then-json", say("<think>The plan wants a notice after {6} calls.</think>\n"
                                + dumps(write, None)), "write_file"),
        ("tool-parameters-keys", say(dumps({"tool": "read_file",
                                            "parameters": {"path": "agent/hooks.py"}})),
         "read_file"),
        ("function-args-keys", say(dumps({"function": "bash", "args": {"command": "ls"}})),
         "bash"),
        ("list-of-calls", say(dumps([call("read_file", path="harness.yaml"),
                                     call("read_file", path="agent/hooks.py")])), "read_file"),
        ("python-literal-call", say(str(call("bash", command="python -m compileall -q ."))),
         "bash"),
        ("trailing-comma-call", say(dumps(replace).replace('"max_steps: 30"\n',
                                                           '"max_steps: 30",\n')),
         "replace_in_file"),
        ("unescaped-backslash-call", say('{"name": "write_file", "arguments": ' + raw_hook + "}"),
         "write_file"),
        ("arguments-as-string", say(dumps({"name": "read_file",
                                           "arguments": '{"path": "harness.yaml"}'})),
         "read_file"),
        ("prose-then-call", say("First let me look at the hooks module: "
                                + dumps(call("read_file", path="agent/hooks.py"), None)
                                + " and then I'll add the notice."), "read_file"),
        ("answer-tags", say("<answer>" + dumps(call("run_checks")) + "</answer>"), "run_checks"),
        ("lone-close-think", say("I need the config {first}.\n</think>\n"
                                 + dumps(call("read_file", path="harness.yaml"))), "read_file"),
        ("uppercase-fence", say("```JSON\n" + dumps(write) + "\n```"), "write_file"),
        ("comments-in-call", say(dumps(replace).replace('"name": "replace_in_file",',
                                                        '"name": "replace_in_file", // edit')),
         "replace_in_file"),
        ("two-fences-draft-final", say(fenced(dumps({"name": "write_file"})) + "\nActually:\n"
                                       + fenced(dumps(write))), "write_file"),
        ("native-two-calls", calls(native("read_file", '{"path": "harness.yaml"}'),
                                   native("read_file", '{"path": "agent/hooks.py"}')),
         "read_file"),
        ("native-dict-arguments", calls({"id": "c1", "type": "function", "function": {
            "name": "bash", "arguments": {"command": "ls"}}}), "bash"),
        ("refusal", say("I'm unable to modify files in this environment."), None),
        ("truncated-call", say(dumps(write)[:60]), None),
        ("tool-named-otherwise", say(dumps(call("create_file", file_path="agent/notes.md",
                                                 file_text="# notes\n"))), "write_file"),
        ("native-named-otherwise", calls(native("execute_bash", '{"cmd": "ls"}')), "bash"),
        ("str-replace-editor-style", say(dumps(call("str_replace", path="harness.yaml",
                                                    old_str="max_steps: 50",
                                                    new_str="max_steps: 30"))),
         "replace_in_file"),
        ("crlf-lines", say(dumps(write).replace("\n", "\r\n")), "write_file"),
        ("missing-required-argument", say(dumps(call("write_file", path="harness.yaml"))), None),
        ("fenced-python-tool", say(fenced(dumps(call("bash", command="grep -n 'after' "
                                                      "harness.yaml")))), "bash"),
    ]  # fmt: skip


def main() -> None:
    roles: dict[str, list[Any]] = {
        "planner": planner() + planner_fields(), "analyzer": analyzer(),
        "synthesizer": synthesizer(), "editor": editor(),
    }  # fmt: skip
    for role, rows in roles.items():
        with (HERE / f"{role}.jsonl").open("w") as out:
            for n, (style, reply, expect) in enumerate(rows):
                message = reply if isinstance(reply, dict) else {"content": reply}
                record = {"id": f"{role}-{n:02d}", "style": style, **message, "expect": expect}
                out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
