"""The wait for the shared model, shown: "Waiting for the model: 2 questions ahead of yours".

The packaged model answers one question at a time for every browser session of the process; the
others wait in line (``ragcore.llms.slots``), told their place and, once a question was timed, when
their turn comes (``Turn.expected_wait``: the last questions' measured times). The Query and Chat
pages start an answer inside ``waiting_notice()``, which is one turn at the model (``one_turn``:
the question's calls share one slot, taken by the first and freed at the end): while it waits, a
placeholder shows the place in line with Cancel, and it is cleared when the model starts. Cancel
needs no handler: any click reruns the script, Streamlit raises inside the next redraw of the
notice (at most half a second later), and that exception frees the question's place as it ends the
run. Closing the tab stops the run the same way. A model call read in the page's own thread (a
follow-up rewritten before the search) redraws the empty notice while the model reads in silence
(``alive``), so Stop ends that call there too, and with it the model's work.
"""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager
from typing import Iterator

import streamlit as st

from ragcore.llms import one_turn, waiting_reporter

_DRAWN = itertools.count()  # a fresh key for each Cancel drawn: one run may wait more than once


def waiting_text(ahead: int, seconds: float | None = None) -> str:
    """What a waiting person reads (``ahead``: questions in line before theirs; ``seconds``:
    the wait expected from the last questions' measured times, None before any)."""
    if ahead == 0:
        place = "Waiting for the model: yours is next"
    else:
        noun = "question" if ahead == 1 else "questions"
        place = f"Waiting for the model: {ahead} {noun} ahead of yours"
    if seconds is None:
        return f"{place}."
    return (f"{place}; your turn comes in about {_duration(seconds)} (by the time the last "
            "questions took).")


def _duration(seconds: float) -> str:
    if seconds < 10:
        return "a few seconds"
    if seconds < 90:
        return f"{5 * round(seconds / 5):.0f} s"
    return f"{round(seconds / 60):.0f} min"


@contextmanager
def waiting_notice() -> Iterator[None]:
    """Within the block, a model call that waits for a free slot shows its place and Cancel
    here (where the notice was opened) until its turn comes."""
    notice = st.empty()
    lines: list = []  # the notice's text line, while it is shown

    turns: list = []  # the question's turn: its line's measured times give the estimate

    def report(ahead: int) -> None:
        if not lines:
            with notice.container():
                lines.append(st.empty())
                st.button("Cancel", key=f"waiting_cancel_{next(_DRAWN)}",
                          help="Stop waiting: your question is taken out of the line.")
        seconds = turns[0].expected_wait(ahead) if turns else None
        lines[0].info(waiting_text(ahead, seconds), icon=":material/hourglass_top:")

    def started() -> None:
        lines.clear()
        notice.empty()

    page = threading.current_thread()

    def alive() -> None:  # the model reads in silence: Stop still ends the run (and the call)
        if threading.current_thread() is page and not lines:
            notice.empty()  # Streamlit raises here once Stop (any click) asked for a rerun

    # One question, one place in line: its gate pass, answer and check share one slot.
    with waiting_reporter(report, started=started, alive=alive), one_turn() as turn:
        turns.append(turn)
        yield
