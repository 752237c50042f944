"""A chat turn while it is made, drawn in place in the reply's bubble: what the model reads and
how far it has read, the draft (grey, under a label saying it is being checked), the check;
then the checked reply takes their place. What each state is, and their order, is
``ragcore.chat.progress``; this module only draws them.

The bubble of a reply being made holds two children: ``body``, empty until the checked reply is
drawn in it exactly as the history draws a saved reply, and ``live``, everything shown
meanwhile (Stop, the place in line, the passages, the reading, the draft), emptied at the end.
So the next run, which draws this reply from the history, finds the same elements in the same
places and leaves nothing of the live turn greyed on screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

import streamlit as st

from ragcore.chat import (
    CHECKING_LABEL, DRAFT_LABEL, FIRST_STEP, FOLLOW_UP_LABEL, SEARCHING_LABEL, TICK_SECONDS,
    Checked, Checking, Draft, Reading, reading_rate, turn_states,
)
from ragcore.present import format as fmt, trace_view
from ragcore.trace import Trace
from webapp.chat.evidence import (
    CHOOSING, FOR_THE_MODEL, READING, WAITING, passages_found,
)
from webapp.chat.agent_steps import listed, reasoned, step_markdown, stream_with_steps
from webapp.chat.chat_controls import stop_button
from webapp.chat.phase_clock import PhaseClock, with_seconds
from webapp.session import session


@dataclass(slots=True)
class LiveTurn:
    """The places a turn being made is drawn in (see the module's docstring)."""

    body: Any  # the checked reply, drawn at the end as the history draws it
    live: Any  # an st.empty holding everything below, emptied at the end
    stop: Any = None  # Stop, while the reply streams
    notice: Any = None  # a container: the place in line is drawn in it (``waiting_notice``)
    evidence: Any = None
    reading: Any = None
    steps: Any = None
    draft: Any = None
    clock: PhaseClock = field(default_factory=PhaseClock)  # a waiting phase's seconds, counted
    _draft_parts: list = field(default_factory=list)  # the draft's label and text, once drawn
    _passages: list = field(default_factory=list)  # the passages the model reads, once found
    _passages_said: str = ""  # what their heading says the model does with them


def open_live_turn(*, follow_up: bool = False, stop: bool = True) -> LiveTurn:
    """Inside the reply's bubble: its two places, and at once a word that the search began
    (``follow_up``: a question the chat mode has the model rewrite first, for seconds); with
    Stop unless ``stop`` is False (the Query page's answer is not kept when stopped)."""
    # body: an element until the reply is drawn in it, so a reply it replaces (Regenerate, Edit)
    # leaves nothing behind: a container there would keep the old reply's sources on screen
    # until the run ends (Streamlit keeps a same-type block's children).
    turn = LiveTurn(body=st.empty(), live=st.empty())
    with turn.live.container(key="live_turn"):  # the key: a class the browser tests find
        turn.stop = stop_button() if stop else st.empty()
        turn.notice = st.container()
        turn.evidence = st.empty()
        turn.reading = st.empty()
        turn.steps = st.empty()
        turn.draft = st.empty()
    label = f":material/search: {FOLLOW_UP_LABEL if follow_up else SEARCHING_LABEL}"
    turn.clock.show(lambda seconds: turn.evidence.caption(with_seconds(label, seconds)))
    return turn


def reply_body(number: int, slot: Any = None) -> Any:
    """The container the reply at ``number`` is drawn in, in the history and just made alike
    (in ``slot``, a turn's ``body``); its key names it for the browser tests."""
    return (slot if slot is not None else st).container(key=f"answer_{number}")


def found_trace(turn: LiveTurn, top_k: int) -> Trace:
    """A turn's trace that shows its best ``top_k`` passages the moment the search returns
    them, before the sentences the model reads are chosen from them (``Trace.found``)."""
    def show(nodes: list) -> None:
        if nodes:
            _draw_passages(turn, nodes[:top_k], CHOOSING)
    return Trace(found=show)


def show_passages(turn: LiveTurn, sources: list, said: str = FOR_THE_MODEL) -> None:
    """The passages the model is about to read, as the Query page shows them; their heading
    says it reads them once their reading begins (``follow``), or waits for its turn."""
    turn._passages, turn._passages_said = list(sources), said
    if not sources:
        turn.clock.hide()
        turn.evidence.empty()
        return
    _draw_passages(turn, sources, said)


def _draw_passages(turn: LiveTurn, sources: list, said: str) -> None:
    # One element, not a container: a container drawn in the place of a longer one keeps the
    # longer one's extra children on screen until the run ends, emptied first or not (the best
    # 4 found stayed under "Passages found (2)").
    turn.clock.hide()  # the search is over: its seconds are not redrawn over the passages
    turn.evidence.markdown(passages_found(sources, said))


def follow(turn: LiveTurn, states: Iterable[Any]) -> Checked:
    """Draw each state of the turn as it comes; the ``Checked`` one is returned, not drawn."""
    for state in states:
        if isinstance(state, Reading):  # it counts its seconds itself
            turn.clock.hide()
            said = WAITING if state.waiting else READING
            if turn._passages and said != turn._passages_said:
                show_passages(turn, turn._passages, said)
            turn.reading.caption(f":material/menu_book: {state.line()}")
        elif isinstance(state, Draft):
            turn.clock.hide()
            turn.reading.empty()
            _draft(turn, DRAFT_LABEL, state.text)
        elif isinstance(state, Checking):
            turn.stop.empty()  # the reply is whole (and saved): nothing left to stop
            label = f":material/fact_check: {CHECKING_LABEL}"
            _draft(turn, label, state.text)  # then its seconds, while the model judges it
            heading = turn._draft_parts[0]
            turn.clock.show(lambda seconds: heading.markdown(f"**{with_seconds(label, seconds)}**"))
        elif isinstance(state, Checked):
            turn.clock.hide()
            return state
    raise RuntimeError("a turn's states end with Checked")  # turn_states always yields one


def _draft(turn: LiveTurn, label: str, text: str) -> None:
    """The streamed text in a bordered box, grey, under a label: never read as the answer."""
    if not turn._draft_parts:
        with turn.draft.container(border=True, key="reply_draft"):
            turn._draft_parts.extend([st.empty(), st.empty()])
    heading, body = turn._draft_parts
    heading.markdown(f"**{label}**")
    body.caption(fmt.draft_markdown(text))  # a span still open is closed, never a literal **


def end_live_turn(turn: LiveTurn) -> None:
    """Take everything shown meanwhile off the screen (the checked reply follows at once)."""
    turn.clock.close()
    turn.live.empty()


def live_steps(chunks: Iterable[str], trace: Any, turn: LiveTurn) -> Iterator[str]:
    """An agent's reply: at once a line saying the step under way and its seconds, moving while
    the model is silent; its thoughts, tool calls and observations as each step ends (above the
    draft); folded into "Reasoned in N steps" at the end (taken away if it took none)."""
    advanced = bool(session.advanced_choice)  # the tools' names, or what they do
    box = turn.steps.status(f"Step 1: {FIRST_STEP}…", expanded=True)
    took = []

    def show(number: int, step: dict) -> None:
        took.append(number)
        box.markdown(step_markdown(number, step, advanced=advanced))

    def progress(line: str) -> None:
        box.update(label=line)

    yield from stream_with_steps(chunks, trace.notes, show, progress, advanced=advanced)
    if took:
        box.update(label=reasoned(len(took)), state="complete", expanded=False)
    else:
        turn.steps.empty()  # it answered at once ('best' may): no steps to show


def saved_steps(trace: dict | None) -> None:
    """Above an agent's saved reply: the steps it took, folded as they were once it answered
    (the live ones go with the rest of the turn being made)."""
    shown = listed(trace_view.turn_details(trace).get("reasoning") or [])
    if not shown:
        return  # it answered at once ('best' may): nothing to show
    with st.status(reasoned(len(shown)), state="complete", expanded=False):
        for number, step in shown:
            st.markdown(step_markdown(number, step, advanced=bool(session.advanced_choice)))


def follow_reply(turn: LiveTurn, response: Any, chunks: Iterable[str], *, agent: bool, llm: Any,
                 check: Callable[[str], Any]) -> Checked:
    """The reply to one turn shown as it is made (``chunks``: the ``response``'s text, as the
    page reads it): the passages it reads and how far, its draft, its check (``check``: the
    whole text -> what is shown instead); an agent's steps in place of the passages."""
    if agent:  # it searches with tools, step by step: its passages are found as it works
        turn.clock.hide()
        turn.evidence.empty()
        chunks = live_steps(chunks, response.trace, turn)
    else:
        show_passages(turn, response.source_nodes)
    states = turn_states(chunks, check, sources=response.source_nodes,
                         rate=lambda: reading_rate(llm), tick=None if agent else TICK_SECONDS)
    return follow(turn, states)
