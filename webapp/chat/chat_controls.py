"""What a person does to a chat's turns: Stop a reply while it streams, Regenerate the last reply,
Edit and resend an earlier question, browse the versions these keep, Copy a reply.

A streaming reply is mirrored chunk by chunk into the session (``kept_stream``). Pressing Stop
(or anything else) while it streams makes Streamlit end that run; the next run finds the
mirror and keeps the partial reply in the chat, marked stopped (``keep_stopped_reply``).
Regenerate and Edit queue a question (the same, as written, or edited) to be asked again at its
place; the reply is recorded as a new version there and the turns it replaces are kept
(``ragcore.workspace.conversation.versions``), browsed with "< 2/3 >". Nothing is cut before the
new reply is recorded, so a failed or stopped turn loses nothing either.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Iterable, Iterator

import streamlit as st

from ragcore.present import copied_text, format as fmt, passage_section
from ragcore.workspace.conversation import (edited_at, record_stopped_turn, show_version,
                                            versions_at)
from webapp import state
from webapp.chat.browser_actions import copy_button
from webapp.team import team_state
from webapp.session import Session, Widget, session

logger = logging.getLogger(__name__)

STOPPED_NOTE = "Stopped: the reply was cut short when you pressed Stop."
INDEXING_NOTE = ("Files added to this chat were still being indexed: this answer used only the "
                 "documents indexed before them.")
INDEXING_MARK = "files_indexing"  # in a reply's trace: new files were being indexed
# Regenerate is offered under the last reply only, as chat apps do: an earlier question is
# asked again with Edit, sent changed or as it is; both keep what they replace.
REGENERATE_HELP = ("Ask this question again, as written, for a new reply. This reply is kept: "
                   "browse back to it with < >.")
EDIT_HELP = ("Change this question, or send it as it is, to ask it again (an earlier reply "
             "is regenerated this way). The conversation from here is kept: browse back to "
             "it with < >.")
SCOPE_MARK = "searched_files"  # in a reply's trace: the only files it could use


# -- Stop ------------------------------------------------------------------------------------


def begin_reply(chat: Any, question: str, settings: dict, at: int | None = None) -> dict:
    """Note the question (``at``: asked again there) before anything can stop its run (Stop
    may come before a word)."""
    kept = {"chat": chat, "question": question, "text": "", "response": None,
            "settings": settings, "at": at}
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
                        settings=kept["settings"], at=kept.get("at"))
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
    """Queue ``question`` to be asked at ``position`` (where the open chat's question is), its
    reply the newest version from there on."""
    keep_stopped_reply(state.workspace())  # pressed while a reply streamed
    del session.editing_question
    session.queued_question, session.queued_at = question, position


def regenerate(reply: int | None = None) -> None:
    """Ask again, as written, the question of the reply at position ``reply`` (default: the
    last question); that reply and the turns after it are kept as the earlier version. Pressed
    while the next question is answered, it ends that answer (kept, in the earlier version)."""
    keep_stopped_reply(state.workspace())
    chat = state.open_chat()
    end = len(chat.messages) if reply is None else reply
    position = max(i for i, m in enumerate(chat.messages[:end]) if m.role == "user")
    ask_again(position, chat.messages[position].content)


def switch_version(position: int, number: int) -> None:
    """Show version ``number`` of the conversation forked at ``position``, saved as shown."""
    keep_stopped_reply(state.workspace())
    chat = state.open_chat()
    show_version(chat, position, number)
    team_state.save_chat(state.workspace(), chat)
    state.set_open_chat(chat, None)  # the engine's memory follows the version shown


def version_nav(chat: Any, position: int) -> None:
    """"< 2/3 >" for the versions of the conversation forked at ``position`` (none: one)."""
    shown, total = versions_at(chat, position)
    if total < 2:
        return
    back, where, ahead = st.columns([1, 2, 1], vertical_alignment="center", width=180)
    back.button("", key=f"version_back_{position}", icon=":material/chevron_left:",
                type="tertiary", disabled=shown == 1, on_click=switch_version,
                args=(position, shown - 1), help="The earlier version")
    where.markdown(f"{shown}/{total}", help="Regenerate and Edit keep every version: nothing "
                   "asked or answered here is lost")
    ahead.button("", key=f"version_next_{position}", icon=":material/chevron_right:",
                 type="tertiary", disabled=shown == total, on_click=switch_version,
                 args=(position, shown + 1), help="The later version")


def versions_note(chat: Any, position: int) -> str:
    """Where the versions not shown went (the switch alone said nothing of the turns it hid):
    'Your earlier conversation from here is kept: see version 1/2'."""
    shown, total = versions_at(chat, position)
    asked = chat.messages[position].content
    replies_only = all(len(tail) <= 2 and tail[0].content == asked
                       for tail in chat.messages[position].versions)
    what = "reply" if replies_only else "conversation from here"
    if shown == total:
        earlier = f"version 1/{total}" if total == 2 else f"versions 1 to {total - 1} of {total}"
        return f"Your earlier {what} is kept: see {earlier} with the arrows above."
    return (f"This is version {shown}/{total}, kept from before; the newest is {total}/{total}, "
            "with the arrows above.")


def start_edit(position: int) -> None:
    session.editing_question = position


def cancel_edit() -> None:
    del session.editing_question


def send_edited(position: int, text_key: str) -> None:
    question = str(session.widget(text_key, "")).strip()  # asked as written
    if question:
        ask_again(position, question)


def render_question(message: Any, position: int, chat: Any = None) -> Any:
    """A question of the history, with Edit (a text box and Send while editing) and, where it
    was edited, its versions (``chat``: the chat it is in). Returns the place of its versions,
    for ``question_versions`` once a question asked again there has its reply (None while
    editing)."""
    if session.editing_question == position:
        text_key = Widget.edited_question(position)
        st.text_area("Edit your question", value=message.content, key=text_key)
        send, cancel = st.columns(2)
        send.button("Send edited question", key=f"send_edit_{position}", type="primary",
                    on_click=send_edited, args=(position, text_key),
                    help="The conversation from here is kept as the earlier version: "
                         "browse back to it with < >.")
        cancel.button("Cancel", key=f"cancel_edit_{position}", on_click=cancel_edit)
        return None
    st.markdown(fmt.markdown_text(message.content))
    edit, versions = st.columns([1, 3], vertical_alignment="center")
    edit.button("Edit", key=f"edit_{position}", icon=":material/edit:",
                on_click=start_edit, args=(position,), type="tertiary", help=EDIT_HELP)
    if chat is not None:
        question_versions(chat, position, versions)
    return versions


def question_versions(chat: Any, position: int, place: Any) -> None:
    """An edited question's versions in ``place`` (beside Edit) and, under it, where the
    versions not shown went; nothing for a question never edited."""
    if edited_at(chat, position):
        with place:
            version_nav(chat, position)
        st.caption(versions_note(chat, position))


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


def reply_actions(message: Any, position: int, *, last: bool, shown: str | None = None,
                  listing: Any = None, chat: Any = None) -> Any:
    """Copy, the versions of a regenerated reply (``chat``: the chat it is in) and, under the
    last saved reply, Regenerate (in the slot returned: a reply made after it empties it).
    Copy gives the reply as shown (``shown``: checked against its passages, ragcore's [n]
    markers), in plain text with its sources (``listing``) as footnotes."""
    copy, again, versions, _ = st.columns([1, 1, 1, 2], vertical_alignment="center")
    with copy:
        copy_button(copied_text(message.content if shown is None else shown, listing,
                                copied_places(listing)), key=f"reply_{position}")
    forked = chat is not None and position > 0 and not edited_at(chat, position - 1)
    if forked:
        with versions:
            version_nav(chat, position - 1)
    if forked and versions_at(chat, position - 1)[1] > 1:
        st.caption(versions_note(chat, position - 1))
    if not last:
        return None
    slot = again.empty()
    slot.button("Regenerate", key=f"regenerate_{position}", icon=":material/refresh:",
                on_click=regenerate, args=(position,), help=REGENERATE_HELP)
    return slot


def copied_places(listing: Any) -> dict[int, str]:
    """Where in its file each source without a page is, by number, for Copy's footnotes: the
    section its passage starts in ("section “Installation”"), read from the file; none when
    the file has no heading above it."""
    places = {}
    for source in (*listing.shown, *listing.hidden) if listing is not None else ():
        node = source.scored.node
        if source.scored.page or not node.metadata.get("file_path"):
            continue
        heading = _section_of(node)
        if heading:
            places[source.number] = f"section “{heading}”"
    return places


def _section_of(node: Any) -> str:
    """The section ``node``'s passage starts in, found once per file version and passage: every
    reply's Copy text is drawn on every rerun, and finding it scans the file up to the passage."""
    path = Path(node.metadata["file_path"])
    try:
        modified = path.stat().st_mtime_ns
    except OSError as exc:
        logger.info("no section for a passage of %s: %s", path, exc)
        return passage_section(None, node.text, node.start_char)
    return _section(str(path), modified, node.text, node.start_char)


@st.cache_data(max_entries=512, show_spinner=False)
def _section(path: str, modified: int, text: str, start: int | None) -> str:
    """``passage_section`` of ``text`` at ``start`` in the file at ``path`` as of ``modified``."""
    return passage_section(_document_of(path, modified, text, start), text, start)


def _document_of(path: str, modified: int, text: str, start: int | None) -> str | None:
    """The text of the document the passage was cut from, read again (None: gone or changed)."""
    try:
        texts = _document_texts(path, modified)
    except Exception as exc:  # noqa: BLE001 - the footnote names the file alone
        logger.info("no section for a passage of %s: %s", path, exc)
        return None
    return next((t for t in texts if start is not None and t[start:start + len(text)] == text),
                None)


@st.cache_data(max_entries=16, show_spinner=False)
def _document_texts(path: str, modified: int) -> list[str]:
    """The texts a file reads as (``modified``: its time, so a changed file is read again)."""
    from ragcore import load_file

    return [document.text for document in load_file(Path(path))]
