"""The saved chats in the Chat page's sidebar: pinned first, then Today, Yesterday, Earlier.

Each chat is listed by its title (``ragcore.chat.titles``: key phrases or a model's words) with
the typed name of its index, never the index's folder name. ``group_chats`` is the pure part
(which heading each chat goes under); ``saved_chats`` draws the list with a pin per chat.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Sequence

import streamlit as st

from ragcore.present import format as fmt, friendly_date, parse_iso
from ragcore.workspace.names import display_name
from webapp import state
from webapp.chat.chat_modes import mode_name
from webapp.team import team_state

SHOWN_CHATS = 30
PINNED, TODAY, YESTERDAY, EARLIER = "Pinned", "Today", "Yesterday", "Earlier"


def day_group(updated: str, now: datetime | None = None) -> str:
    """Today, Yesterday or Earlier for a chat last updated at ``updated`` (ISO-8601)."""
    moment = parse_iso(updated)
    now = (now or datetime.now(timezone.utc)).astimezone()
    if moment is None:
        return EARLIER
    day = moment.astimezone(now.tzinfo).date()
    if day == now.date():
        return TODAY
    return YESTERDAY if day == (now - timedelta(days=1)).date() else EARLIER


def group_chats(summaries: Sequence[Any], now: datetime | None = None) -> list[tuple[str, list]]:
    """(heading, chats) in the order listed: pinned chats first, then by the day last used;
    within a group, the most recently updated first. Empty groups are left out."""
    groups: dict[str, list] = {PINNED: [], TODAY: [], YESTERDAY: [], EARLIER: []}
    for summary in sorted(summaries, key=lambda s: (s.updated, s.id), reverse=True):
        heading = PINNED if summary.pinned else day_group(summary.updated, now)
        groups[heading].append(summary)
    return [(heading, chats) for heading, chats in groups.items() if chats]


def toggle_pin(chat_id: str, pinned: bool) -> None:
    ws, current = state.workspace(), state.open_chat()
    ws.chats.set_pinned(chat_id, pinned)
    if current is not None and current.id == chat_id:
        current.pinned = pinned


def saved_chats(ws: Any, chat: Any, *, on_open: Callable[[str], None],
                on_delete_all: Callable[[], None]) -> None:
    """The saved chats, grouped and searchable; the open one highlighted, each with a pin."""
    everything = listed_chats(ws)
    if not everything:
        return
    st.subheader("Saved chats")
    words = st.text_input("Search chats", key="chat_search", placeholder="words in a chat",
                          icon=":material/search:")
    names = {s.index: display_name(ws, s.index) for s in everything}
    found = _search(ws, everything, words, names) if words.strip() else everything
    if not found:
        st.caption("No saved chat contains these words.")
    shown = found[:SHOWN_CHATS]
    for heading, chats in group_chats(shown):
        st.markdown(f"**{heading}**")
        for summary in chats:
            _chat_row(summary, summary.id == chat.id, names[summary.index], on_open)
    if len(found) > SHOWN_CHATS:
        st.caption(f"{len(found) - SHOWN_CHATS} older chats: search to find them.")
    st.button("Delete all chats…", on_click=on_delete_all, icon=":material/delete_sweep:")


def listed_chats(ws: Any) -> list:
    """This person's saved chats (every chat in single-user mode) but the empty ones: a cleared
    chat is not listed, as a new chat is not until its first question."""
    return [s for s in team_state.chats(ws) if s.messages]


def _search(ws: Any, everything: Sequence[Any], words: str, names: dict[str, str]) -> list:
    """The chats whose title or messages hold all ``words``, or whose index's name does."""
    wanted = words.lower().split()
    hits = {s.id for s in ws.chats.list(search=words)}
    hits |= {s.id for s in everything if all(w in names[s.index].lower() for w in wanted)}
    return [s for s in everything if s.id in hits]


def row_help(summary: Any) -> str:
    """'4 messages, 2 other versions kept, started today': the messages shown, and the versions
    Regenerate or Edit kept beside them (issue 66: "2 messages" for a chat of three replies)."""
    kept = getattr(summary, "other_versions", 0)
    versions = f", {fmt.counted(kept, 'other version')} kept" if kept else ""
    return (f"{fmt.counted(summary.messages, 'message')}{versions}, "
            f"started {friendly_date(summary.created)}")


def _chat_row(summary: Any, is_open: bool, index_shown: str, on_open: Callable) -> None:
    title, pin = st.columns([6, 1], vertical_alignment="center")
    title.button(summary.title, key=f"open_{summary.id}", on_click=on_open, args=(summary.id,),
                 width="stretch", type="primary" if is_open else "secondary",
                 help=row_help(summary))
    pin.button("", key=f"pin_{summary.id}", on_click=toggle_pin,
               args=(summary.id, not summary.pinned),
               icon=":material/keep_off:" if summary.pinned else ":material/keep:",
               help="Unpin this chat" if summary.pinned else "Pin this chat (listed first)")
    st.caption(row_caption(summary, index_shown))


def row_caption(summary: Any, index_shown: str) -> str:
    """'today 10:04 · last reply: Answer from the documents · Speeches': the chat's mode is its
    last reply's (a chat may be asked in several), said only for a chat that has a reply."""
    replied = summary.messages >= 2  # a question, then its reply
    mode = f"last reply: {mode_name(summary.chat_mode)} · " if replied else ""
    return f"{friendly_date(summary.updated)} · {mode}{index_shown}"
