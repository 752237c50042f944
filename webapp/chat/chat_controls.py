"""What a person does to a chat's turns: Stop a reply while it streams, Regenerate the last reply,
Edit and resend an earlier question, Copy a reply.

A streaming reply is mirrored chunk by chunk into the session (``kept_stream``). Pressing Stop
(or anything else) while it streams makes Streamlit end that run; the next run finds the
mirror and keeps the partial reply in the chat, marked stopped (``keep_stopped_reply``).
Regenerate and Edit cut the conversation before a question and queue the question (the same or
edited) for the page to ask again; the engine's memory is rebuilt from what is left.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

import streamlit as st

from ragcore.present import format as fmt
from ragcore.workspace.conversation import record_stopped_turn
from webapp import state
from webapp.team import team_state
from webapp.session import Session, Widget, session

STOPPED_NOTE = "Stopped: the reply was cut short when you pressed Stop."
INDEXING_NOTE = ("Files added to this chat were still being indexed: this answer used only the "
                 "documents indexed before them.")
INDEXING_MARK = "files_indexing"  # in a reply's trace: new files were being indexed
SCOPE_MARK = "searched_files"  # in a reply's trace: the only files it could use


# -- Stop ------------------------------------------------------------------------------------


def begin_reply(chat: Any, question: str, settings: dict) -> dict:
    """Note the question before anything can stop its run (Stop may come before a word)."""
    kept = {"chat": chat, "question": question, "text": "", "response": None,
            "settings": settings}
    session.streaming_reply = kept
    return kept


def kept_stream(kept: dict, response: Iterable[str]) -> Iterator[str]:
    """The reply's chunks as they come, each also added to the session's copy of it; when
    they are no longer read (Stop), the reply is closed."""
    kept["response"] = response
    try:
        for chunk in response:
            kept["text"] += chunk
            yield chunk
    finally:  # stopped before its end (Stop): the reply's remaining work is not run
        close = getattr(response, "close", None)
        if close is not None:
            close()


def stream_finished() -> None:
    """The reply streamed to its end (and was recorded): nothing to keep."""
    del session.streaming_reply


def keep_stopped_reply(ws: Any) -> bool:
    """Keep the reply a previous run left half-streamed (Stop, or another chat opened) in its
    chat, saved; True if there was one."""
    kept = session.take(Session.streaming_reply)
    if not kept:
        return False
    chat = kept["chat"]
    record_stopped_turn(chat, kept["question"], kept["text"], kept["response"],
                        settings=kept["settings"])
    team_state.save_chat(ws, chat)
    current = state.open_chat()
    if current is not None and current.id == chat.id:
        state.set_open_chat(chat, None)  # the engine's memory is rebuilt from the saved turns
    return True


def stop_button() -> Any:
    """A Stop button for the reply about to stream; its slot is emptied when the reply ends."""
    slot = st.empty()
    slot.button("Stop", key="stop_reply", icon=":material/stop_circle:",
                help="End this reply now; what was written so far is kept.")
    return slot


# -- Regenerate and Edit ---------------------------------------------------------------------


def ask_again(position: int, question: str) -> None:
    """Cut the open chat before the message at ``position`` and queue ``question``."""
    keep_stopped_reply(state.workspace())  # pressed while a reply streamed
    chat = state.open_chat()
    del chat.messages[position:]
    del session.editing_question
    state.set_open_chat(chat, None)
    session.queued_question = question


def regenerate(reply: int | None = None) -> None:
    """Ask again the question of the reply at position ``reply`` (default: the last question);
    that reply and all after it are replaced. Pressed while the next question is answered, it
    ends that answer (kept, then cut with the rest)."""
    keep_stopped_reply(state.workspace())
    chat = state.open_chat()
    end = len(chat.messages) if reply is None else reply
    position = max(i for i, m in enumerate(chat.messages[:end]) if m.role == "user")
    ask_again(position, chat.messages[position].content)


def start_edit(position: int) -> None:
    session.editing_question = position


def cancel_edit() -> None:
    del session.editing_question


def send_edited(position: int, text_key: str) -> None:
    question = " ".join(str(session.widget(text_key, "")).split())
    if question:
        ask_again(position, question)


def render_question(message: Any, position: int) -> None:
    """A question of the history, with Edit (a text box and Send while editing)."""
    if session.editing_question == position:
        text_key = Widget.edited_question(position)
        st.text_area("Edit your question", value=message.content, key=text_key)
        send, cancel = st.columns(2)
        send.button("Send edited question", key=f"send_edit_{position}", type="primary",
                    on_click=send_edited, args=(position, text_key),
                    help="The conversation after this question is replaced by the new answer.")
        cancel.button("Cancel", key=f"cancel_edit_{position}", on_click=cancel_edit)
        return
    st.markdown(fmt.markdown_text(message.content))
    st.button("Edit", key=f"edit_{position}", icon=":material/edit:",
              on_click=start_edit, args=(position,), type="tertiary",
              help="Change this question and ask it again.")


# -- the reply -------------------------------------------------------------------------------


def render_reply(message: Any, *, text: str | None = None) -> None:
    """A reply's text (the one place a saved reply is drawn; ``text``: the same with [1] [2]
    markers) and its notes."""
    st.markdown(fmt.markdown_text(message.content if text is None else text))
    reply_notes(message)


def reply_notes(message: Any) -> None:
    """Under a reply: stopped, asked while files were indexed, the only files it could use."""
    if (message.trace or {}).get("stopped_by_user"):
        st.caption(STOPPED_NOTE)
    if (message.trace or {}).get(INDEXING_MARK):
        st.caption(INDEXING_NOTE)
    if (message.trace or {}).get(SCOPE_MARK):
        chosen = ", ".join(f"“{name}”" for name in message.trace[SCOPE_MARK])
        st.caption(f"Used only {chosen} (Documents to use).")


def reply_actions(message: Any, position: int, *, last: bool, shown: str | None = None
                  ) -> Any:
    """Copy (a code box with a copy icon) and, under the last saved reply, Regenerate (in the
    slot returned: a reply made after it empties it). Copy gives the reply as shown
    (``shown``: checked against its passages, ragcore's [n] markers), not the model's draft."""
    copy, again, _ = st.columns([1, 1, 3])
    with copy.popover("Copy", icon=":material/content_copy:"):
        st.caption("Press the copy icon at the box's top right.")
        st.code(message.content if shown is None else shown, language=None, wrap_lines=True)
    if not last:
        return None
    slot = again.empty()
    slot.button("Regenerate", key=f"regenerate_{position}", icon=":material/refresh:",
                on_click=regenerate, args=(position,),
                help="Ask this reply's question again for a new reply.")
    return slot
