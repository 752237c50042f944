"""Fuzzed model replies through whole ReAct turns: the user never sees the format's own lines.

A seeded generator writes replies the way small models bend the format (markdown around markers,
any casing, odd whitespace, fences, numbered lists, truncation, invented observations, repeated
steps, answers followed by more steps, a second Answer line, unmarked prose) and a scripted
FakeLLM plays them, in random chunk sizes, through ``ReActAgent.chat``. For every turn the text
the user gets (the stream as read, and the answer kept in the memory) must hold no scaffolding
line: a line that, without its markdown decoration, starts with a marker and a colon; and the
streamed answer is the one remembered.
"""

from __future__ import annotations

import json
import random
import time
import re

import pytest

from ragcore.agent import ReActAgent
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.tools import FunctionTool

# Decoration a model puts before a marker word, and around it before the colon.
LEADS = ("", "", "", "  ", "\t", "**", "__", "*", "`", "#", "### ", "> ", "- ", "* ", "+ ",
         "1. ", "2) ", "- **", "> **", "```")
TAILS = ("", "", "", " ", "**", "__", "*", "`")
SCAFFOLDING = re.compile(
    r"^[\s#>*_`+\-\d.)]*(thought|action|action[ _]*input|observation|final[ _]*answer|answer)"
    r"[ \t*_`]*:",
    re.IGNORECASE,
)
PROSE = ("The report has 12 pages.", "Paris is the capital of France.", "It is 42.",
         "I am not sure; the documents do not say.", "Here is a list:\n- one\n- two",
         "```python\nprint('hi')\n```", "Sources: page 3.", "Note: check the appendix.")


def lookup(query: str) -> str:
    """Look something up in the documents."""
    return f"The documents say {query!r} is on page 3."  # repr: one line, whatever the query


def scaffolding_lines(text: str) -> list[str]:
    return [line for line in re.split(r"\r\n|\r|\n", text) if SCAFFOLDING.match(line)]


def _cased(rng: random.Random, word: str) -> str:
    choice = rng.random()
    if choice < 0.6:
        return word
    if choice < 0.75:
        return word.upper()
    if choice < 0.9:
        return word.lower()
    return "".join(c.upper() if rng.random() < 0.5 else c.lower() for c in word)


def _marker(rng: random.Random, word: str) -> str:
    if " " in word and rng.random() < 0.3:
        word = word.replace(" ", rng.choice(["_", "  ", ""]))
    lead, tail = rng.choice(LEADS), rng.choice(TAILS)
    space = rng.choice(["", "", " "])
    if lead.strip(" ") in ("**", "__", "*", "`") and rng.random() < 0.7:
        tail = lead.strip(" ")  # balanced: **Thought:** or **Thought**:
        return f"{lead}{_cased(rng, word)}{space}:{tail}" if rng.random() < 0.5 else (
            f"{lead}{_cased(rng, word)}{tail}{space}:")
    return f"{lead}{_cased(rng, word)}{tail}{space}:"


def _action_input(rng: random.Random) -> str:
    query = rng.choice(["page count", "capital of France", "6 * 7", "Thought: x"])
    shapes = [json.dumps({"query": query}), "{'query': '%s'}" % query, query,
              "```json\n" + json.dumps({"query": query}) + "\n```", '{"query": "unfinished',
              json.dumps({"query": query}) + " (waiting for the result)", ""]
    return rng.choice(shapes)


def _fragment(rng: random.Random) -> str:
    kind = rng.choices(
        ["thought", "action", "answer", "observation", "prose", "step"],
        weights=[3, 3, 3, 2, 2, 2],
    )[0]
    if kind == "thought":
        return f"{_marker(rng, 'Thought')} {rng.choice(['I should look it up.', 'done', ''])}"
    if kind == "action":
        tool = rng.choice(["lookup", "lookup", "`lookup`", "search", "None", ""])
        text = f"{_marker(rng, 'Action')} {tool}"
        if rng.random() < 0.8:
            text += f"\n{_marker(rng, 'Action Input')} {_action_input(rng)}"
        return text
    if kind == "answer":
        word = rng.choice(["Answer", "Answer", "Final Answer"])
        gap = rng.choice([" ", " ", "\n", "\n\n", " "])
        said = rng.choice(PROSE) if rng.random() < 0.85 else _fragment(rng)  # "Answer: Action:"
        return f"{_marker(rng, word)}{gap}{said}"
    if kind == "observation":
        return f"{_marker(rng, 'Observation')} {rng.choice(PROSE)}"
    if kind == "prose":
        return rng.choice(PROSE)
    return "\n".join(_fragment(rng) for _ in range(rng.randint(2, 3)))  # a repeated step


def fuzzed_reply(rng: random.Random) -> str:
    """One model reply: 1-5 fragments, sometimes fenced, sometimes cut off."""
    joiner = rng.choice(["\n", "\n", "\n\n", "\r\n", "\n  "])
    reply = joiner.join(_fragment(rng) for _ in range(rng.randint(1, 5)))
    if rng.random() < 0.1:
        reply = f"```\n{reply}\n```"
    if rng.random() < 0.15:
        reply = reply[: rng.randint(0, len(reply))]
    return reply


def run_turn(rng: random.Random) -> tuple[list[str], str, str]:
    """One agent turn over fuzzed replies: (replies, streamed text, answer kept in memory)."""
    replies = [fuzzed_reply(rng) for _ in range(5)]
    llm = FakeLLM(replies, default="Answer: fine.", chunk_size=rng.choice([1, 3, 7, 20, 4096]))
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)], llm=llm,
                                  max_iterations=rng.choice([2, 4, 6]))
    memory = ChatMemory()
    streamed = "".join(agent.chat("How many pages?", memory))
    return replies[: len(llm.calls)], streamed, memory.messages[-1].content


def leaking_turns(seed: int, turns: int) -> list[tuple[list[str], str]]:
    """The turns whose streamed text or remembered answer shows a scaffolding line, or differ."""
    rng = random.Random(seed)
    leaks = []
    for _ in range(turns):
        replies, streamed, remembered = run_turn(rng)
        shown = scaffolding_lines(streamed) + scaffolding_lines(remembered)
        if shown or streamed != remembered:
            leaks.append((replies, shown[0] if shown else f"streamed {streamed!r}"))
    return leaks


def test_the_scaffolding_check_knows_decorated_markers():
    assert scaffolding_lines("ok\n**Action Input:** {}\n> *observation*: x\n2. FINAL_ANSWER: y")
    assert not scaffolding_lines("The answer: 42.\nActions: none\nthoughtful: yes")


def test_fuzzed_turns_never_show_the_format_to_the_user():
    leaks = leaking_turns(seed=33, turns=1500)  # 479 leaked before the fix
    assert not leaks, f"{len(leaks)} of 1500 turns leaked, e.g. {leaks[0][1]!r} in {leaks[0][0]!r}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_many_more_fuzzed_turns_never_show_the_format(seed):
    leaks = leaking_turns(seed=seed, turns=5000)
    assert not leaks, f"{len(leaks)} of 5000 turns leaked, e.g. {leaks[0][1]!r} in {leaks[0][0]!r}"


@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ("Answer: It is 42.\nFinal Answer: 42", "It is 42."),  # answering twice
        ("Answer:\n\n**Final Answer:** 42", "42"),  # a repeated marker before the text
        ("Answer: Answer: 42", "42"),
        ("The trend rises.\n- Observation: sales doubled.", "The trend rises."),  # unmarked
        ("Answer: Observation: 12 pages\nAnswer: 12 pages.", "Answer: fine."),  # no answer:
        ("```\nobservation: 12 pages\n```", "Answer: fine."),  # a format error, asked again
        ("FinalAnswer: 12 pages.", "12 pages."),
    ],
)
def test_worked_examples_of_replies_that_leaked(reply, shown):
    llm = FakeLLM([reply], default="Answer: fine.", chunk_size=3)
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)], llm=llm)
    memory = ChatMemory()
    assert "".join(agent.chat("How many pages?", memory)) == shown.removeprefix("Answer: ")
    assert memory.messages[-1].content == shown.removeprefix("Answer: ")


def test_a_numbered_step_is_an_action():
    llm = FakeLLM(['1. Thought: look\n2. Action: lookup\n3. Action Input: {"query": "pages"}'])
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)], llm=llm)
    task = agent.create_task("How many pages?", ChatMemory())
    step = agent.run_step(task)
    assert (step.action, step.action_input) == ("lookup", {"query": "pages"})


def test_a_long_line_of_repeated_answer_markers_streams_in_linear_time():
    reply = "Answer: " + "**Answer:** " * 50_000 + "42"
    started = time.perf_counter()
    llm = FakeLLM([reply], chunk_size=5)
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)], llm=llm)
    assert agent.chat("?", ChatMemory()).text == "42"
    assert time.perf_counter() - started < 10.0
