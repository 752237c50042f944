"""``ragcore chat``'s progress line (``cli.progress.follow_turn``): while the model reads its
passages, how far it has read, then that it drafts and that the draft is checked; on a terminal
one line redrawn in place and cleared before the answer."""

from __future__ import annotations

import io
import time

from ragcore.chat.response import ChatResponse
from ragcore.cli.progress import follow_turn
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

PASSAGES = [ScoredNode(Node(text=" ".join(["word"] * 350)), score=0.7)]


class Reads:
    """A model reading prompts at 800 tokens (600 words) a second, by its own measure."""

    def reading_rate(self):
        return 800.0


def slow_reply() -> ChatResponse:
    def produce():
        time.sleep(0.7)  # reading the prompt
        yield from ("The policy ", "engine grants access.")

    return ChatResponse(produce, trace=Trace(), source_nodes=PASSAGES)


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_log_gets_a_line_per_state_in_order():
    err = io.StringIO()
    response = slow_reply()
    follow_turn(response, Reads(), err, tick=0.1)
    lines = err.getvalue().splitlines()
    assert lines[0] == "Passages found (1), being read by the model."
    assert lines[1].startswith("Reading the passages: ") and lines[1].endswith("s so far.")
    assert lines[2:] == ["Writing the answer: a draft, checked before it is shown.",
                         "Checking the answer against the passages…"]
    assert response.text == "The policy engine grants access."  # replayed for the answer


def test_a_terminal_line_is_redrawn_then_cleared():
    err = Terminal()
    follow_turn(slow_reply(), Reads(), err, tick=0.1)
    found, shown = err.getvalue().split("\n")
    assert found == "Passages found (1), being read by the model."  # it stays
    assert shown.count("\rReading the passages: ") >= 3
    assert "Reading the passages: taking longer than estimated: 1 s so far, about 1 s" in shown
    assert shown.endswith("\r")  # cleared: the answer starts on an empty line
