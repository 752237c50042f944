"""What a person does to a chat as a whole, from the Chat page's sidebar: start a new chat,
Clear, Rename, Delete (this one or all) and Export it, and open a saved one.

``chat_controls`` acts on a chat's turns (Stop, Regenerate, Edit, Copy); this module on the
chat itself. Clear and Delete ask first, saying what goes for good (``confirm_delete``); the
buttons' callbacks run before the page is drawn again, so the page shows the chat they leave.
"""

from __future__ import annotations

import streamlit as st

from ragcore.present import format as fmt
from ragcore.workspace.chats import export_json, export_markdown
from ragcore.workspace.conversation import clear_chat, start_chat
from webapp import state
from webapp.chat import chat_list
from webapp.chat.chat_modes import DEFAULT_MODE
from webapp.session import Widget, session
from webapp.team import team_state


def new_chat(index_name: str) -> None:
    """A new, empty chat on ``index_name`` in the chosen chat mode, open (not saved yet)."""
    mode = session.widget(Widget.CHAT_MODE, DEFAULT_MODE)
    state.set_open_chat(start_chat(index_name, mode, llm_label="", settings={}), None)
    state.select_index(index_name)
    st.query_params.pop("chat", None)


def open_chat_by_id(chat_id: str) -> None:
    """Open a saved chat (the policy decides whether this person may)."""
    state.open_saved_chat(team_state.open_chat(state.workspace(), chat_id))


def clear_open_chat() -> None:
    """Empty the open chat, once its Clear was confirmed (its messages cannot come back)."""
    del session.confirm_chat_delete
    ws, current = state.workspace(), state.open_chat()
    clear_chat(current)
    if ws.has_chat(current.id):  # a chat never saved stays unsaved
        team_state.save_chat(ws, current)
    state.set_open_chat(current, None)


def rename_open_chat(title_key: str) -> None:
    ws, current = state.workspace(), state.open_chat()
    title = session.widget(title_key, "")
    if ws.has_chat(current.id):
        current.title = ws.chats.rename(current.id, title).title
    elif title.strip():  # a chat not yet saved keeps the title for when it is
        current.title, current.renamed = " ".join(title.split()), True


def ask_to_delete(what: str) -> None:
    session.confirm_chat_delete = what


def cancel_delete() -> None:
    del session.confirm_chat_delete


def delete_chats(what: str) -> None:
    """Delete the open chat or every chat, then start a new chat on the same index."""
    ws, current = state.workspace(), state.open_chat()
    if what == "all":  # all of this person's chats (every chat in single-user mode)
        if team_state.current()[0] is None:
            ws.chats.delete_all()
        else:
            team_state.delete_chats(ws, [c.id for c in team_state.chats(ws)])
    elif ws.has_chat(current.id):
        team_state.delete_chats(ws, [current.id])
    del session.confirm_chat_delete
    new_chat(current.index)


def chat_actions(ws, chat) -> None:
    """New chat, clear, rename, delete and export of the open chat; the saved chats."""
    cols = st.columns(2)
    cols[0].button("New chat", on_click=new_chat, args=(chat.index,), width="stretch",
                   icon=":material/add_comment:")
    cols[1].button("Clear", on_click=ask_to_delete, args=("clear",), width="stretch",
                   disabled=not chat.messages)
    if chat.messages:
        with st.expander("Rename, delete or export this chat"):
            title_key = Widget.chat_title(chat.id)
            st.text_input("Title", value=chat.title, key=title_key)
            st.button("Save title", on_click=rename_open_chat, args=(title_key,))
            st.button("Delete this chat", on_click=ask_to_delete, args=("open",),
                      icon=":material/delete:")
            st.download_button("Export as Markdown", export_markdown(chat),
                               file_name=f"chat-{chat.id}.md", mime="text/markdown")
            st.download_button("Export as JSON", export_json(chat),
                               file_name=f"chat-{chat.id}.json", mime="application/json")
    confirm_delete(ws, chat)
    saved_chats(ws, chat)


def clear_warning(chat) -> str:
    """'Clear this chat? Its 4 messages (and 2 other versions) are removed for good.'"""
    kept = sum(len(m.versions) for m in chat.messages)
    versions = f" (and {fmt.counted(kept, 'other version')})" if kept else ""
    count = len(chat.messages)
    its = "Its message" if count == 1 else f"Its {count} messages"
    verb = "is" if count == 1 and not kept else "are"
    return f"Clear this chat? {its}{versions} {verb} removed for good."


def confirm_delete(ws, chat) -> None:
    """Delete, Delete all and Clear each ask first: what goes, and a way to keep it."""
    what = session.confirm_chat_delete
    if what is None or (what == "clear" and not chat.messages):
        return
    if what == "clear":
        st.warning(clear_warning(chat))
        yes, no = st.columns(2)
        yes.button("Yes, clear", type="primary", on_click=clear_open_chat)
        no.button("Keep", on_click=cancel_delete)
        return
    if what == "all":
        listed = len(chat_list.listed_chats(ws))  # as many as the list shows
        st.warning(f"Delete all {listed} saved chats for good?" if listed != 1
                   else "Delete the saved chat for good?")
    else:
        st.warning(f"Delete the chat “{chat.title or 'new chat'}” for good?")
    yes, no = st.columns(2)
    yes.button("Yes, delete", type="primary", on_click=delete_chats, args=(what,))
    no.button("Cancel", on_click=cancel_delete)


def saved_chats(ws, chat) -> None:
    """The saved chats, grouped by day with pinned ones first (``webapp.chat.chat_list``)."""
    chat_list.saved_chats(ws, chat, on_open=open_chat_by_id,
                          on_delete_all=lambda: ask_to_delete("all"))
