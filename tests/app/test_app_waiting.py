"""While an answer waits for the shared model, the page shows its place in line with Cancel, and
clears it when the model starts (``webapp.waiting``)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from webapp.waiting import waiting_text


def _page() -> None:
    """A page asking a one-slot model that one question holds and another waits for."""
    import threading

    import streamlit as st

    from ragcore.llms.slots import SlotQueue
    from webapp.waiting import waiting_notice

    if "slots" not in st.session_state:
        slots = st.session_state.slots = SlotQueue(1)
        st.session_state.others = [slots.enter(), slots.enter()]  # one answering, one in line
    if st.session_state.get("free_soon"):  # the others end while this run waits
        others = st.session_state.others
        threading.Timer(0.3, lambda: [t.close() for t in others]).start()
    with st.session_state.slots.enter() as ticket, waiting_notice():
        if not ticket.wait(timeout=None if st.session_state.get("free_soon") else 0.2):
            st.stop()  # the page ends here while still in line
    st.write("answered")


def test_the_place_in_line_is_shown_with_cancel_then_cleared_once_the_model_starts():
    at = AppTest.from_function(_page, default_timeout=30).run()
    assert [i.value for i in at.info] == ["Waiting for the model: 1 question ahead of yours."]
    assert [b.label for b in at.button] == ["Cancel"]
    assert not at.markdown
    at.session_state.free_soon = True
    at.button[0].click().run()  # Cancel (any click reruns); this time the others end meanwhile
    assert not at.exception and not at.info and not at.button
    assert [m.value for m in at.markdown] == ["answered"]
    assert at.session_state.slots.state().running == 0  # the tickets were given back


def test_the_wording_counts_the_questions_ahead():
    assert waiting_text(2) == "Waiting for the model: 2 questions ahead of yours."
    assert waiting_text(1) == "Waiting for the model: 1 question ahead of yours."
    assert waiting_text(0) == "Waiting for the model: yours is next."


def test_the_wording_gives_the_wait_expected_from_the_last_questions_times():
    said = "(by the time the last questions took)."
    assert waiting_text(0, 42.0) == ("Waiting for the model: yours is next; your turn comes in "
                                     f"about 40 s {said}")
    assert waiting_text(2, 150.0) == ("Waiting for the model: 2 questions ahead of yours; your "
                                      f"turn comes in about 2 min {said}")
    assert waiting_text(0, 3.0).endswith(f"in about a few seconds {said}")
    assert waiting_text(1, None) == "Waiting for the model: 1 question ahead of yours."



def _second_person() -> None:
    """A second person asks while the first one's question holds a one-question model."""
    import streamlit as st

    from ragcore.llms.slots import SlotQueue, current_turn
    from webapp.waiting import waiting_notice

    now = [1000.0]
    line = SlotQueue(1, clock=lambda: now[0])
    with line.enter() as earlier:  # a question timed before: it held the model 50 s
        earlier.wait()
        now[0] += 50.0
    first = line.enter()
    first.wait()
    now[0] += 20.0  # the first person's question is 20 s in
    with waiting_notice():
        current_turn().queue = line  # the line its first call enters (as Turn.admitted sets)
        if not line.enter().wait(timeout=0.2):
            st.stop()  # the page ends here while still in line


def test_a_waiting_person_sees_their_place_and_when_their_turn_comes():
    at = AppTest.from_function(_second_person, default_timeout=30).run()
    assert [i.value for i in at.info] == [
        "Waiting for the model: yours is next; your turn comes in about 30 s (by the time the "
        "last questions took)."]
