"""What a person is told while a chat turn is made (``ragcore.chat.progress``): the passages'
reading, then the draft, then the check, then the checked answer; nothing shown as the answer
before it is checked; a wait in line told in the reader's own thread, and a withdrawn question
frees its place."""

from __future__ import annotations

import re
import threading
import time

import pytest

from ragcore.chat.progress import (
    Checked, Checking, Draft, Reading, passage_words, reading_rate, turn_states,
)
from ragcore.errors import LLMError
from ragcore.llms.slots import SlotQueue, waiting_reporter
from ragcore.types import Node, ScoredNode

PASSAGES = [ScoredNode(Node(text="The election timeout defaults to 1000 milliseconds in etcd."),
                       score=0.8),
            ScoredNode(Node(text="Heartbeat interval is 100 ms."), score=0.5)]
REFUSAL = "The documents don't say what the default election timeout is."


def slow_model(text: str, *, reads: float = 0.6, per_chunk: float = 0.02):
    """A model that reads its prompt for ``reads`` seconds, then writes a word at a time."""
    time.sleep(reads)
    for word in text.split(" "):
        time.sleep(per_chunk)
        yield word + " "


def kinds(states) -> list[str]:
    """The run of state kinds, repeats folded: ['Reading', 'Draft', 'Checking', 'Checked']."""
    run: list[str] = []
    for state in states:
        if not run or run[-1] != type(state).__name__:
            run.append(type(state).__name__)
    return run


def test_a_turn_is_read_then_drafted_then_checked_in_that_order():
    states = list(turn_states(slow_model("It is 1000 milliseconds."), lambda text: REFUSAL,
                              sources=PASSAGES, rate=lambda: 40.0, tick=0.1))
    assert kinds(states) == ["Reading", "Draft", "Checking", "Checked"]
    readings = [s for s in states if isinstance(s, Reading)]
    assert len(readings) >= 3  # told again while the model is silent
    assert readings[0].words == passage_words(PASSAGES) == 14
    assert [r.read for r in readings] == sorted(r.read for r in readings)  # it only advances
    assert readings[-1].read == 14  # 40 words a second: all 14 read within 0.6 s
    assert readings[-1].line().startswith("Reading the passages: taking longer than estimated")
    assert states[-1] == Checked("It is 1000 milliseconds. ", REFUSAL)


def test_no_shown_answer_is_later_taken_back_by_a_refusal():
    """Count the texts a page shows as the answer (not as a draft) that a later state replaces
    by a refusal: the model's confident wrong sentence is only ever a draft."""
    wrong = "The default election timeout in etcd is 1000 milliseconds (1 second)."
    states = list(turn_states(slow_model(wrong, reads=0.2), lambda text: REFUSAL,
                              sources=PASSAGES, tick=0.05))
    shown_as_answer = [s.result for s in states if isinstance(s, Checked)]
    drafts = [s.text for s in states if isinstance(s, (Draft, Checking))]
    assert drafts[-1].strip() == wrong  # the model's words were shown, as a draft
    assert shown_as_answer == [REFUSAL]  # and nothing but the verdict as the answer
    taken_back = [t for t in shown_as_answer[:-1] if t != shown_as_answer[-1]]
    assert taken_back == []


def test_without_a_measured_rate_the_seconds_spent_reading_are_told():
    states = turn_states(slow_model("Yes.", reads=0.3), str, sources=PASSAGES, tick=0.1)
    first = next(states)
    assert first.read is None
    # read alike with a rate or without one: passages and seconds, never words (issue 66)
    assert first.line() == "Reading the passages: 2 to read, 0 s so far."
    assert kinds(states) == ["Reading", "Draft", "Checking", "Checked"]


def test_without_passages_nothing_is_checked_and_no_tick_reads_in_this_thread():
    seen = []

    def model():
        seen.append(threading.current_thread())
        yield "Hello."

    assert kinds(turn_states(model(), str, tick=None)) == ["Draft", "Checked"]
    assert seen == [threading.current_thread()]


def test_a_model_error_reaches_the_reader():
    def broken():
        yield "Half"
        raise LLMError("the local model failed: out of memory")

    with pytest.raises(LLMError, match="out of memory"):
        list(turn_states(broken(), str, sources=PASSAGES, tick=0.05))


def in_line(slots: SlotQueue, text: str):
    """A model call that waits for the engine's one slot (as ``LocalEngine.stream`` does)."""
    with slots.enter() as ticket:
        ticket.wait()
        yield text


def test_a_wait_in_line_is_told_in_the_readers_thread_then_reading_begins():
    slots = SlotQueue(1)
    other = slots.enter()  # someone else's question holds the slot
    told, where = [], []

    def report(ahead: int) -> None:
        told.append(ahead)
        where.append(threading.current_thread())

    threading.Timer(0.5, other.close).start()
    with waiting_reporter(report, started=lambda: told.append("started")):
        states = list(turn_states(in_line(slots, "Yes."), str, sources=PASSAGES, tick=0.05))
    assert told[0] == 0 and told[-1] == "started"
    assert set(where) == {threading.current_thread()}  # a page may draw it
    waiting = [s for s in states if isinstance(s, Reading) and s.waiting]
    assert waiting and "when your turn comes" in waiting[0].line()
    assert slots.state().running == 0 and slots.state().waiting == 0


def test_a_question_withdrawn_in_line_gives_its_place_back():
    slots = SlotQueue(1)
    other = slots.enter()

    def report(ahead: int) -> None:
        raise KeyboardInterrupt  # as Streamlit's Stop ends a run inside a redraw

    with waiting_reporter(report), pytest.raises(KeyboardInterrupt):
        list(turn_states(in_line(slots, "Yes."), str, sources=PASSAGES, tick=0.05))
    deadline = time.monotonic() + 3
    while slots.state().waiting and time.monotonic() < deadline:
        time.sleep(0.05)
    assert slots.state().waiting == 0  # the worker's next report raised: its place is free
    other.close()


def test_the_reading_rate_is_the_backends_measure_in_words():
    class Measured:
        def reading_rate(self):
            return 100.0  # tokens a second

    assert reading_rate(Measured()) == 75.0
    assert reading_rate(object()) is None


def test_the_reading_reads_alike_with_a_rate_or_without_one_and_waiting_says_so():
    """Issue 66: the first question (no rate measured yet) was told "Reading the passages (126
    words): 29 s so far", later ones "N of M words"; a place in line claimed nothing."""
    unmeasured = Reading(4, 126, None, 29.0).line()
    measured = Reading(4, 126, 70, 12.0).line()
    pattern = r"^Reading the passages: (4 to read|\d of 4 read), \d+ s so far\.$"
    assert re.match(pattern, unmeasured) and re.match(pattern, measured), (unmeasured, measured)
    assert measured == "Reading the passages: 2 of 4 read, 12 s so far."
    assert "words" not in unmeasured + measured
    waiting = Reading(4, 126, None, 3.0, waiting=True).line()
    assert waiting.startswith("Waiting in line") and "Reading" not in waiting


def test_past_its_estimate_the_reading_says_it_takes_longer_and_its_seconds_keep_counting():
    """Issue 65: "all 4 read; the answer should begin any moment" stood still on screen for
    6-47 s before the first word. Past the measured rate's estimate (14 words at 40 a second:
    0.35 s) the line says the reading takes longer, and its seconds go on counting."""
    states = turn_states(slow_model("Yes.", reads=2.4), str, sources=PASSAGES,
                         rate=lambda: 40.0, tick=0.1)
    lines = [s.line() for s in states if isinstance(s, Reading)]
    assert not [line for line in lines if "any moment" in line or "begin" in line]
    past = [line for line in lines if "taking longer than estimated" in line]
    assert past and lines[lines.index(past[0]):] == past  # once said, it stays said
    assert re.fullmatch(r"Reading the passages: taking longer than estimated: \d+ s so far, "
                        r"about 1 s estimated\.", past[0]), past[0]
    seconds = [int(re.search(r": (\d+) s so far", line).group(1)) for line in past]
    assert seconds == sorted(seconds) and len(set(seconds)) >= 3, past  # 0, 1, 2: it moves


def test_a_wait_in_line_counts_its_seconds():
    """Issue 65: a place in line told once stood still on screen for the whole wait."""
    assert Reading(3, 126, None, 12.0, waiting=True).line() == \
        "Waiting in line, 12 s so far: the model reads the 3 passages when your turn comes."
