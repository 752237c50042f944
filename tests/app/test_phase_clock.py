"""A phase the page's thread waits on is redrawn with its seconds (``webapp.chat.phase_clock``,
issue 65): the search's and the check's labels stood still on screen for up to 31 s."""

from __future__ import annotations

import time

from webapp.chat.phase_clock import PhaseClock, with_seconds


def test_a_shown_phase_is_redrawn_with_its_seconds_until_hidden():
    drawn: list[float] = []
    clock = PhaseClock(every=0.1)
    clock.show(drawn.append)  # drawn at once, then on every tick from the clock's thread
    time.sleep(0.55)
    clock.hide()
    hidden_at = len(drawn)
    time.sleep(0.3)
    clock.close()
    assert drawn[0] == 0.0 and len(drawn) >= 4, drawn
    assert drawn == sorted(drawn) and drawn[-1] >= 0.3, drawn  # the seconds count
    assert len(drawn) == hidden_at  # hidden: no more redraws


def test_a_label_gains_its_seconds_once_there_is_one():
    assert with_seconds("Checking the answer against the passages…", 0.4) == \
        "Checking the answer against the passages…"
    assert with_seconds("Checking the answer against the passages…", 3.2) == \
        "Checking the answer against the passages… 3 s"
