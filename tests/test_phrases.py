"""The policy recognises prompt text by meaning: paraphrases trigger the same trait, unrelated
text triggers none, and what tool results contain (folds, notices, blocks) is recognised."""

from __future__ import annotations

import re

import pytest

from harnesspro.execution.fakes import phrases
from harnesspro.execution.fakes.phrases import prompt_traits
from harnesspro.harness.mechanisms import catalog
from harnesspro.improvers.roles.ideas import WORDINGS
from harnesspro.run.context import seed_template

PARAPHRASES = {
    "verify": [
        "Before you reply that you are done, verify your work.",
        "Double-check the result before finishing.",
        "Please confirm that your output file has the right columns.",
        "Test your changes before you submit.",
        "Make sure the generated report matches the format described above.",
        "Always check your output against the instructions at the end.",
    ],
    "direct": [
        "Avoid unnecessary exploration: read only what the task needs, then act.",
        "Do not explore the filesystem; go straight to the change.",
        "Minimise the number of tool calls spent looking around.",
        "Skip the exploration and act.",
        "Only inspect what the task mentions.",
    ],
    "concise": [
        "Be concise.",
        "Keep your replies short.",
        "Answer briefly, in a sentence or two.",
        "Be terse: no lengthy explanations.",
        "Write succinct responses.",
    ],
    "skim": [
        "Read large files with `head`, `tail` or `wc` instead of `cat`.",
        "Never print a whole large file; grep it.",
        "Use head or tail to look at big files.",
        "Don't dump the entire file to the terminal.",
        "Skim inputs: look at only the first lines.",
    ],
}
UNRELATED = [
    "Sort the lines of input.txt and write them to output.txt.",
    "You are a helpful assistant. Think about the task, then act.",
    "Each command runs in a fresh shell; use absolute paths.",
    "The report lists every user whose login shell is bash.",
    "Explain what a checksum is.",
]


@pytest.mark.parametrize("family", sorted(PARAPHRASES))
def test_paraphrases_trigger_the_same_trait(family: str) -> None:
    for text in PARAPHRASES[family]:
        assert family in prompt_traits(text), text


def test_unrelated_text_triggers_nothing() -> None:
    seed_prompts = (seed_template() / "prompts" / "system.md").read_text()
    for text in [*UNRELATED, seed_prompts]:
        assert prompt_traits(text) == frozenset(), text


def test_the_catalogs_own_prompts_read_as_what_they_say() -> None:
    assert prompt_traits(catalog.CONCISE_PROMPT) == {"concise", "direct"}
    assert prompt_traits(catalog.VERIFY_PROMPT) == {"verify"}
    assert prompt_traits(catalog.SKIM_PROMPT) == {"skim"}


def test_the_tasks_own_instruction_is_not_a_harness_instruction() -> None:
    instruction = "Verify the checksums in SHA256SUMS and list the files that fail."
    assert "verify" in prompt_traits(instruction)
    assert prompt_traits(f"{instruction}\nYour working directory is /w.", instruction) == set()


def test_tool_result_signals() -> None:
    assert phrases.FINISH.search(catalog.NOTICE_FIRST) and phrases.FINISH.search("Wrap it up.")
    assert phrases.FINISH.search("[notice] Only 3 steps left: submit your best work now.")
    assert not phrases.FINISH.search("total 12\n-rw-r--r-- 1 agent agent 5063 in.json")
    assert phrases.BLOCKED.search("Tool call blocked: the tool-call budget is spent.")
    assert phrases.REFUSED.search("[guard] Submission refused once: nothing changed.")
    assert phrases.REPAIR.search("[repair] Your last reply could not be parsed: resend it.")
    assert phrases.FOLDED.search("a\n[... 120 lines (4410 characters) omitted ...]\nz")
    assert phrases.FOLDED.search("GET /index.html  [repeated 14 times]")
    assert not phrases.FOLDED.search("10.0.0.1 - - GET /index.html 200\n10.0.0.2 GET / 404")


def test_a_notice_counts_at_the_edges_of_a_result_not_inside_a_file() -> None:
    body = "x" * 2000 + "\nPlease wrap up the meeting notes.\n" + "y" * 2000
    assert phrases.result_signals(body) == (False, False, False)
    assert phrases.result_signals(body + "\n\n[notice] Wrap it up.")[0]
    folded = "a\n" * 20 + "[... 300 lines (9000 characters) omitted ...]\n" + "z\n" * 20
    assert phrases.result_signals(folded) == (False, True, False)


def test_the_free_form_improvers_own_wordings_are_recognised_by_meaning() -> None:
    # Not by their phrases (see the disjointness test): by the families' vocabulary.
    expected = {"recheck-outputs": "verify", "brief-replies": "concise", "read-less": "skim"}
    for idea, trait in expected.items():
        for text in WORDINGS[idea]:
            assert prompt_traits(text) == {trait}, text
    for text in WORDINGS["checkpoint-notice"]:
        assert phrases.result_signals(f"ok\n\n[notice] {text}")[0], text
    for text in WORDINGS["failure-hint"]:
        assert phrases.result_signals(f"bash: sortx: not found\n\n[hint] {text}")[2], text
    assert not phrases.result_signals("sorted 12 lines; all tests passed")[2]


NEGATED = {
    "verify": [
        "There is no need to verify your work.",
        "Don't double-check the output; just submit.",
        "Skip verification of the results.",
        "You do not have to confirm the output.",
        "Verification of your work is not needed.",
        "Finish without checking the files.",
    ],
    "concise": [
        "Do not be brief: explain your reasoning in full.",
        "No need to keep replies short.",
        "Never be terse with the user.",
    ],
    "skim": [
        "No need to skim: read every file whole.",
        "Do not use head or tail on large files.",
    ],
}
# Synonyms and another word order than the paraphrases above.
REORDERED = {
    "verify": [
        "Your outputs must be checked before you finish.",
        "Once done, re-examine the files you produced.",
        "The result should be validated before you stop.",
    ],
    "concise": ["Replies short, please.", "Keep reasoning minimal.", "Be laconic."],
    "skim": ["With tail, look at the big logs first.", "Peek at inputs rather than reading all."],
    "direct": ["Looking around is wasteful here, so avoid it; act directly."],
}


@pytest.mark.parametrize("family", sorted(NEGATED))
def test_a_negated_request_is_not_a_request(family: str) -> None:
    for text in NEGATED[family]:
        assert family not in prompt_traits(text), text


@pytest.mark.parametrize("family", sorted(REORDERED))
def test_synonyms_and_word_order(family: str) -> None:
    for text in REORDERED[family]:
        assert family in prompt_traits(text), text


def test_negated_notices_and_hints_are_not_signals() -> None:
    assert not phrases.FINISH.search("No need to hurry; do not submit yet.")
    assert phrases.FINISH.search("Budget: 2 tool calls left.")
    assert not phrases.RETRY_HINT.search("That step failed; do not retry it.")
    assert phrases.RETRY_HINT.search("It did not work, so repair the command.")


def _norm(text: str) -> str:
    return re.sub(r"[\s\-]+", " ", text.lower()).strip()


def test_families_share_no_literal_string_with_the_improvers_wordings() -> None:
    """Every phrase of two or more words in a family's lists is absent from the offline
    improver's wordings (single words are the shared language: "verify", "head"), and the
    improver's signature phrases are in no list."""
    wordings = [_norm(w) for texts in WORDINGS.values() for w in texts]
    families = [*phrases.PROMPT_FAMILIES.values(), phrases.FINISH, phrases.RETRY_HINT]
    literals = {_norm(lit) for family in families for lit in family.literals()}
    shared = [lit for lit in literals if " " in lit and any(lit in w for w in wordings)]
    assert shared == []
    signature = ("piece by piece", "say little", "a brief note", "double check", "went wrong")
    assert not [s for s in signature for lit in literals if s in lit]
    assert not literals & set(wordings)
