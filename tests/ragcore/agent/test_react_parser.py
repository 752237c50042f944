"""The ReAct output parser over what real models write, and the streaming answer scanner."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.agent.react_parser import (
    _ACTION_OR_ANSWER,
    ActionStep,
    AnswerScanner,
    AnswerStep,
    ParseError,
    parse_action_input,
    parse_react_reply,
)

Q = {"input": "page count of the report"}

# (model output, expected step) - shapes seen from llama3, mistral, qwen, gpt-4o-mini, phi3.
TABLE = [
    (
        'Thought: I need to search.\nAction: search_documents\nAction Input: {"input": '
        '"page count of the report"}',
        ActionStep("I need to search.", "search_documents", Q),
    ),
    (  # no Thought line
        'Action: search_documents\nAction Input: {"input": "page count of the report"}',
        ActionStep("", "search_documents", Q),
    ),
    (  # JSON in a fenced block
        'Thought: search\nAction: search_documents\nAction Input:\n```json\n'
        '{"input": "page count of the report"}\n```',
        ActionStep("search", "search_documents", Q),
    ),
    (  # single quotes (Python dict syntax)
        "Thought: search\nAction: search_documents\nAction Input: {'input': "
        "'page count of the report'}",
        ActionStep("search", "search_documents", Q),
    ),
    (  # trailing text after the JSON, and a hallucinated observation
        'Thought: search\nAction: search_documents\nAction Input: {"input": "page count of the '
        'report"} (waiting for the result)\nObservation: 12 pages\nThought: done',
        ActionStep("search", "search_documents", Q),
    ),
    (  # extra whitespace and odd capitalization
        '  THOUGHT :   search  \n  action:   search_documents  \n  ACTION INPUT :  '
        '{ "input" : "page count of the report" }  ',
        ActionStep("search", "search_documents", Q),
    ),
    (  # markdown bold markers and a backticked tool name
        '**Thought:** search\n**Action:** `search_documents`\n**Action Input:** {"input": '
        '"page count of the report"}',
        ActionStep("search", "search_documents", Q),
    ),
    (  # JSON literals and a trailing comma
        'Action: lookup\nAction Input: {"exact": true, "limit": null, "k": 3,}',
        ActionStep("", "lookup", {"exact": True, "limit": None, "k": 3}),
    ),
    (  # plain text input (bound to a one-parameter tool later)
        "Thought: search\nAction: search_documents\nAction Input: page count of the report",
        ActionStep("search", "search_documents", "page count of the report"),
    ),
    (  # action and input on one line
        'Action: multiply {"a": 2, "b": 3}',
        ActionStep("", "multiply", {"a": 2, "b": 3}),
    ),
    (  # a function-call style action
        'Action: search_documents("page count of the report")',
        ActionStep("", "search_documents", "page count of the report"),
    ),
    (  # "Action: None" and then the answer
        "Thought: I know this.\nAction: None\nAnswer: 12 pages.",
        AnswerStep("I know this.", "12 pages."),
    ),
    (  # a tool without arguments
        "Thought: check the time\nAction: now",
        ActionStep("check the time", "now", {}),
    ),
    (
        "Thought: I can answer without using more tools.\nAnswer: The report has 12 pages.",
        AnswerStep("I can answer without using more tools.", "The report has 12 pages."),
    ),
    (  # Final Answer:, multi-line answer
        "Thought: done\nFinal Answer: Two points:\n- one\n- two",
        AnswerStep("done", "Two points:\n- one\n- two"),
    ),
    (  # the answer with no prefix at all
        "The report has 12 pages.",
        AnswerStep("(implicit) answered without the Answer: marker", "The report has 12 pages."),
    ),
    (  # answer in bold markdown
        "**Thought**: ok\n**Answer**: 12 pages.",
        AnswerStep("ok", "12 pages."),
    ),
    (  # the first marker decides: an answer followed by an action stays an answer
        "Thought: ok\nAnswer: 12 pages.\nAction: search_documents\nAction Input: {}",
        AnswerStep("ok", "12 pages."),
    ),
    (  # a model running on past its answer: the invented next step is not part of it
        "Thought: ok\nAnswer: 12 pages.\n\nObservation: none\nThought: done",
        AnswerStep("ok", "12 pages."),
    ),
    (  # marker words inside a line of the answer are just words
        "Answer: The action: search. Thought: none.",
        AnswerStep("", "The action: search. Thought: none."),
    ),
]


@pytest.mark.parametrize("reply, expected", TABLE)
def test_real_world_outputs(reply, expected):
    assert parse_react_reply(reply) == expected


@pytest.mark.parametrize(
    "reply, problem",
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("Thought: I should think more about this.", "Thought but no"),
        ('Action Input: {"input": "x"}', "no 'Action:' line"),
        ("Thought: done\nAnswer:   ", "followed by nothing"),
        ("Action: ???\nAction Input: {}", "did not name a tool"),
    ],
)
def test_unparseable_replies_become_parse_errors_that_say_how_to_fix(reply, problem):
    step = parse_react_reply(reply)
    assert isinstance(step, ParseError)
    assert problem in step.problem
    assert "Action Input:" in step.observation and "Answer:" in step.observation


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ("```\n{'a': 'b'}\n```", {"a": "b"}),
        ("[1, 2]", "[1, 2]"),  # not an object: returned as text
        ("{'a': \"don't\"}", {"a": "don't"}),
        ('"just a quoted string"', "just a quoted string"),
        ('{"nested": {"b": [1, 2]}} and more', {"nested": {"b": [1, 2]}}),
        ("{broken", "{broken"),
    ],
)
def test_action_input_repairs(text, expected):
    assert parse_action_input(text) == expected


def scan(chunks: list[str]) -> str:
    scanner = AnswerScanner()
    return "".join(scanner.feed(c) for c in chunks) + scanner.finish()


def test_scanner_releases_only_the_answer_across_chunk_boundaries():
    chunks = ["Thought: fine\n**Ans", "wer:*", "* The rep", "ort has 12", " pages.  \n"]
    assert scan(chunks) == "The report has 12 pages."


def test_scanner_holds_back_a_line_that_may_start_another_step():
    scanner = AnswerScanner()
    assert scanner.feed("Answer: 12 pages.\nObs") == "12 pages."
    assert scanner.feed("ervation: made up") == ""
    assert scanner.finish() == ""
    scanner = AnswerScanner()
    assert scanner.feed("Answer: Two things:\nAct") == "Two things:"
    assert scanner.feed("ually, more.") == "\nActually, more."
    assert scanner.finish() == ""


def test_scanner_releases_nothing_for_an_action():
    assert scan(['Thought: x\nAct', 'ion: search\nAction Input: {"input": "Answer: no"}']) == ""


@st.composite
def react_like(draw):
    """Text made of ReAct-ish pieces, so markers appear in varied places."""
    pieces = st.sampled_from(
        [
            "Thought:", "Action:", "Action Input:", "Answer:", "Final Answer:", "Observation:",
            "**Answer:**", "answer :", "\n", " ", "```json\n", "```", "{", "}", "'", '"',
            '{"input": "q"}', "{'a': 1,}", "search_documents", "true", "null", "é", "\\",
            "Act", "ion", "Tho", "ught", " Input", "*", "_", "- ", "> ",
        ]
    )
    parts = draw(st.lists(st.one_of(pieces, st.text(max_size=8)), max_size=25))
    return "".join(parts)


def split_points(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@settings(max_examples=400, deadline=None)
@given(text=st.one_of(react_like(), st.text(max_size=200)), cuts=st.lists(st.integers(0, 300)))
def test_any_text_parses_without_raising_and_streams_consistently(text, cuts):
    step = parse_react_reply(text)
    assert isinstance(step, (ActionStep, AnswerStep, ParseError))
    released = scan(split_points(text, cuts))
    if released:
        assert isinstance(step, AnswerStep) and released == step.answer
    if isinstance(step, ActionStep):
        assert step.action and released == ""


def _first_marker_is_answer(text: str) -> bool:
    marker = _ACTION_OR_ANSWER.search(text)
    return marker is not None and "answer" in marker.group("kind").lower()


@settings(max_examples=400, deadline=None)
@given(text=react_like(), cuts=st.lists(st.integers(0, 300)))
def test_streamed_answer_equals_whole_text_parse_for_any_chunking(text, cuts):
    step = parse_react_reply(text)
    if isinstance(step, AnswerStep) and _first_marker_is_answer(text):
        assert scan(split_points(text, cuts)) == step.answer
        assert scan(list(text)) == step.answer


def test_scanner_ends_the_answer_at_an_action_input_line_written_without_a_space():
    assert scan(["Answer: 12 pages.\nactioni", "nput: {}"]) == "12 pages."


def test_a_700k_character_answer_streams_in_linear_time():
    line = "The report lists every page of the annual review in order. "
    body = "".join(line if i % 40 else line + "\n" for i in range(12_000))
    text = "Thought: I know it.\nAnswer: " + body
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    assert len(text) > 700_000
    started = time.perf_counter()
    released = scan(chunks)
    elapsed = time.perf_counter() - started
    assert released == body.strip()
    assert elapsed < 5.0, f"scanning took {elapsed:.1f}s"
    one_line = "Answer: " + "word " * 140_000  # one huge line: no newline to rest on
    started = time.perf_counter()
    assert scan([one_line[i : i + 4] for i in range(0, len(one_line), 4)]) == one_line[8:].strip()
    assert time.perf_counter() - started < 5.0


@pytest.mark.parametrize(
    "reply",
    ["Observation: the report has 12 pages.", "\n  **Observation:** found 3 files\nSo 3 files."],
)
def test_a_reply_that_invents_an_observation_is_a_format_error_not_the_answer(reply):
    step = parse_react_reply(reply)
    assert isinstance(step, ParseError)
    assert "Observation:" in step.observation and "only the tool" in step.observation
    assert scan([reply]) == ""


def test_an_observation_inside_an_answer_stays_part_of_the_reply_before_it():
    step = parse_react_reply("The trend rises.\nObservation: sales doubled.")
    assert isinstance(step, AnswerStep) and step.answer.startswith("The trend rises.")


class _LookCounter:
    """Stands in for the scanner's marker checks, counting the characters they are given and
    failing once they exceed ``budget`` (so a quadratic scanner fails fast instead of hanging)."""

    def __init__(self, budget: int) -> None:
        self.looked, self.budget = 0, budget

    def count(self, text: str) -> None:
        self.looked += len(text)
        assert self.looked <= self.budget, f"looked at {self.looked:,} characters"

    def pattern(self, regex):
        outer = self

        class Counted:
            def match(self, text, *args):
                outer.count(text)
                return regex.match(text, *args)

        return Counted()


@pytest.mark.parametrize("lead", [" ", "*", "- #"])
def test_a_700k_line_of_markdown_arriving_in_small_chunks_is_looked_at_a_bounded_number_of_times(
    monkeypatch, lead
):
    from ragcore.agent import react_parser

    run = lead * (700_000 // len(lead))
    replies = [run + "Answer: yes it is", "Answer: ok\n" + run + " more\nThought: x"]
    counter = _LookCounter(budget=sum(8 * len(r) for r in replies))
    for name in ("_ACTION_OR_ANSWER", "_ANSWER_END"):
        monkeypatch.setattr(react_parser, name, counter.pattern(getattr(react_parser, name)))
    may_become = react_parser._may_become
    monkeypatch.setattr(react_parser, "_may_become",
                        lambda line, words: counter.count(line) or may_become(line, words))
    first, second = ([r[i : i + 3] for i in range(0, len(r), 3)] for r in replies)
    assert scan(first) == "yes it is"
    assert scan(second) == "ok\n" + run + " more"
    assert counter.looked > 0
