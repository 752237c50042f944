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
