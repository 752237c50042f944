"""An agent's steps are shown while it works, before its answer streams (webapp.chat.agent_steps)."""

from __future__ import annotations

import time

import pytest
from test_app_pages import app_env, built_workspace, docs_ws, open_page  # noqa: F401

from ragcore.errors import LLMConnectionError
from webapp.chat.agent_steps import stream_with_steps

SEARCH = {"thought": "I should search.", "action": "search_documents",
          "action_input": {"input": "tides"}, "observation": "The Moon raises tides."}


def agent_reply(notes: dict, events: list, *, fail: bool = False):
    """Like an agent's reply: a silent tool step (noted in the trace), then the answer."""
    time.sleep(0.3)  # the model writes its first step
    notes.setdefault("reasoning", []).append(SEARCH)
    time.sleep(0.6)  # the second step, the answer, is on its way
    if fail:
        raise LLMConnectionError("server at http://127.0.0.1:9 refused the connection")
    for word in ("The ", "Moon."):
        events.append(("chunk", word))
        yield word
    notes["reasoning"].append({"thought": "I know.", "answer": "The Moon."})


def test_a_step_is_shown_as_it_ends_before_any_answer_text():
    notes, events = {}, []
    shown = lambda number, step: events.append(("step", number, step["action"]))  # noqa: E731
    reply = "".join(stream_with_steps(agent_reply(notes, events), notes, shown))
    assert reply == "The Moon."
    assert events[0] == ("step", 1, "search_documents")  # while the answer was still coming
    assert [e for e in events if e[0] == "step"] == [("step", 1, "search_documents")]


def test_an_error_in_the_reply_is_raised_where_it_is_read():
    notes, events = {}, []
    with pytest.raises(LLMConnectionError, match="refused"):
        list(stream_with_steps(agent_reply(notes, events, fail=True), notes,
                               lambda n, s: events.append(n)))
    assert events == [1]  # the step before the failure was shown


def test_stopping_the_reader_closes_the_reply():
    closed = []

    def endless():
        try:
            while True:
                time.sleep(0.01)
                yield "word "
        finally:
            closed.append(True)

    stream = stream_with_steps(endless(), {}, lambda n, s: None)
    assert next(stream) == "word "
    stream.close()  # Stop pressed: the page stops reading
    deadline = time.monotonic() + 5
    while not closed and time.monotonic() < deadline:
        time.sleep(0.05)
    assert closed


def asked_an_agent(llm, monkeypatch):
    """The Chat page in the agent's mode, ``llm`` answering, asked about Ukraine."""
    from webapp import state

    monkeypatch.setattr(state, "current_llm", lambda: llm)
    at = open_page("chat")
    at.selectbox(key="chat_mode_choice").set_value("react").run()
    at.chat_input[0].set_value("What did the speech say about Ukraine?").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_chat_page_shows_a_react_turns_steps(docs_ws, monkeypatch):
    from ragcore.llms import FakeLLM

    llm = FakeLLM([
        'Thought: I should search the **speech**.\nAction: search_documents\n'
        'Action Input: {"input": "What did the speech say about Ukraine?"}',
        "The passages say the speech stood with Ukraine.",  # the search tool's answer
        "Thought: I can answer now.\nAnswer: The speech stood with Ukraine.",
    ], default="A title")
    at = asked_an_agent(llm, monkeypatch)
    assert any("The speech stood with Ukraine." in m.value for m in at.chat_message[1].markdown)
    body = next(iter(at.chat_message[1].children.values()))  # the reply as the history draws it
    steps = [c for c in body.children.values() if getattr(c, "type", "") == "status"]
    # Drawn above the answer, counting the steps it lists (the answer's is the reply itself):
    # the walk saw "Reasoned in 2 steps" over one, its thought's asterisks shown raw.
    assert [c.label for c in steps] == ["Reasoned in 1 step"]
    shown = [t.value for t in steps[0].markdown]
    assert len(shown) == 1 and shown[0].startswith("**Step 1**  \n**Thought:** I should search "
                                                   "the **speech**."), shown
    assert "**Action:** search_documents" in shown[0] and "**Observation:** " in shown[0]


class _Box:
    """A stand-in for st.status: its labels, with when each was drawn."""

    def __init__(self, label: str, seen: list, began: float) -> None:
        self.seen, self.began = seen, began
        seen.append((time.monotonic() - began, label))

    def update(self, *, label=None, state=None, expanded=None):
        if label is not None:
            self.seen.append((time.monotonic() - self.began, label))

    def markdown(self, body: str) -> None:
        self.seen.append((time.monotonic() - self.began, body))


class _Steps:
    def __init__(self, seen: list, began: float) -> None:
        self.seen, self.began = seen, began

    def status(self, label: str, expanded: bool = False) -> _Box:
        return _Box(label, self.seen, self.began)

    def empty(self) -> None:
        self.seen.append((time.monotonic() - self.began, "(emptied)"))


def test_the_first_step_is_on_screen_within_2_s_of_a_slow_model(monkeypatch):
    """Issue 65: 38.7 s of a Stop button alone. Before the model's first token the box says
    the step under way, and its line moves every second while the model is silent."""
    from types import SimpleNamespace

    from webapp.chat import turn_view

    monkeypatch.setattr(turn_view, "session", SimpleNamespace(advanced_choice=False))
    notes: dict = {}

    def slow_agent():  # the model reads its tools' instructions for 3.5 s, then one step
        time.sleep(3.5)
        notes.setdefault("reasoning", []).append(SEARCH)
        notes["reasoning"].append({"thought": "I know.", "answer": "The Moon."})
        yield "The Moon."

    seen: list = []
    began = time.monotonic()
    turn = SimpleNamespace(steps=_Steps(seen, began))
    reply = "".join(turn_view.live_steps(slow_agent(), SimpleNamespace(notes=notes), turn))
    assert reply == "The Moon."
    first_at, first = seen[0]
    assert first_at < 2 and first.startswith("Step 1: deciding whether to search")
    silent = [t for t, label in seen if t < 3.5]
    assert max(b - a for a, b in zip(silent, [*silent[1:], 3.5])) <= 1.5  # a moving line
    assert seen[-1][1] == "Reasoned in 1 step"  # the one listed: the answer is the reply


# -- without Advanced: each step in a person's words (issue 66) ------------------------------

def _people_step(step: dict) -> str:
    from webapp.chat.agent_steps import step_markdown

    return step_markdown(2, step, advanced=False)


def test_a_step_the_model_wrote_unreadably_is_said_in_a_persons_words():
    from ragcore.agent import ParseError

    problem = ParseError("it began with 'Observation:'", "Observation: the tides")
    step = {"thought": "", "action": None, "action_input": None,
            "observation": problem.observation}
    shown = _people_step(step)
    assert shown == "**Step 2**  \nThe model's step could not be read; it was asked again."
    advanced = step_markdown_advanced(step)
    assert "could not read your reply" in advanced  # the raw text stays under Advanced


def step_markdown_advanced(step: dict) -> str:
    from webapp.chat.agent_steps import step_markdown

    return step_markdown(2, step, advanced=True)


def test_a_search_repeated_is_said_as_reusing_the_earlier_passages():
    from ragcore.agent.task import REPEATED

    step = {**SEARCH, "thought": "I will call search_documents again.",
            "observation": REPEATED.format(action="search_documents", content="The Moon.")}
    shown = _people_step(step)
    assert "It searched the same words again; the earlier passages were reused." in shown
    assert "Searching the documents for:** tides" in shown
    assert "I will call the document search again." in shown
    for internal in ("search_documents", "None", "already called", "Action Input", "Found"):
        assert internal not in shown, (internal, shown)


def test_a_tool_error_is_never_shown_raw_without_advanced():
    step = {**SEARCH, "action_input": "tides",
            "observation": 'Error: Action Input for search_documents must be a JSON object with '
                           'its arguments, e.g. Action Input: {"input": "..."}.'}
    shown = _people_step(step)
    assert "It could not be done as asked; the model was told what to fix." in shown
    assert "search_documents" not in shown and "Action Input" not in shown


def test_the_chat_page_says_an_agents_steps_in_a_persons_words(docs_ws, monkeypatch):
    from ragcore.llms import FakeLLM

    (docs_ws / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    search = ('Thought: I should search.\nAction: search_documents\n'
              'Action Input: {"input": "Ukraine"}')
    llm = FakeLLM([
        'Observation: nothing yet\nAction Input: {"arg": "value"}',  # unreadable: asked again
        search, "The passages say the speech stood with Ukraine.",  # the search tool's answer
        search,  # the same search again: the earlier passages are reused
        "Thought: I can answer now.\nAnswer: The speech stood with Ukraine.",
    ], default="A title")
    at = asked_an_agent(llm, monkeypatch)
    body = next(iter(at.chat_message[1].children.values()))
    steps = [c for c in body.children.values() if getattr(c, "type", "") == "status"]
    assert [c.label for c in steps] == ["Reasoned in 3 steps"]
    shown = "\n".join(t.value for t in steps[0].markdown)
    assert "The model's step could not be read; it was asked again." in shown
    assert "It searched the same words again; the earlier passages were reused." in shown
    for internal in ("None", "search_documents", "Action Input", "Observation", "Error"):
        assert internal not in shown, (internal, shown)
    lines = [c.value for c in at.sidebar.caption]
    assert any("shows its steps when it searches" in line for line in lines), lines
