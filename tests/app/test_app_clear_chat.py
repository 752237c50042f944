"""The Chat page's Clear asks first, saying what goes, and a cleared chat leaves no stale line
in the saved chats (issue 66: "Your work is safe and every label is true")."""

from __future__ import annotations

import json

from test_app_chat_list import chat, saved_titles
from test_app_pages import app_env, built_workspace, button, docs_ws, open_page  # noqa: F401

from ragcore.workspace.chats import ChatSummary


def test_clear_asks_first_and_keep_keeps_every_message(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    saved = docs_ws / "chats" / f"{at.query_params['chat']}.json"
    button(at, "Clear").click().run()
    warnings = [w.value for w in at.warning]
    assert "Clear this chat? Its 2 messages are removed for good." in warnings, warnings
    assert len(at.chat_message) == 2  # nothing is gone yet
    assert len(json.loads(saved.read_text())["messages"]) == 2
    button(at, "Keep").click().run()
    assert not any(w.value.startswith("Clear this chat?") for w in at.warning)
    assert len(at.chat_message) == 2 and len(json.loads(saved.read_text())["messages"]) == 2


def test_a_cleared_chat_is_empty_and_leaves_no_stale_line(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    saved = docs_ws / "chats" / f"{at.query_params['chat']}.json"
    assert saved_titles(at) == ["Speech, Ukraine"]
    button(at, "Clear").click().run()
    button(at, "Yes, clear").click().run()
    assert len(at.chat_message) == 0
    assert json.loads(saved.read_text())["messages"] == []  # the saved copy is cleared too
    assert saved_titles(at) == []  # no "(untitled)" line for the emptied chat
    assert not any("last reply" in c.value for c in at.sidebar.caption)
    assert not any(w.value.startswith("Clear this chat?") for w in at.warning)


def test_delete_all_counts_the_chats_listed_not_a_cleared_one(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    button(at, "New chat").click().run()
    chat(at, "What does the zen of Python say about errors?")
    button(at, "Clear").click().run()
    button(at, "Yes, clear").click().run()
    assert saved_titles(at) == ["Speech, Ukraine"]
    button(at, "Delete all chats…").click().run()
    assert "Delete the saved chat for good?" in [w.value for w in at.warning]


def test_a_chat_without_a_reply_does_not_name_a_last_reply():
    from webapp.chat.chat_list import row_caption

    asked = ChatSummary("c1", "Tides", "docs", "react", "2026-11-29T06:00:00+00:00", 1)
    answered = ChatSummary("c2", "Tides", "docs", "react", "2026-11-29T06:00:00+00:00", 2)
    assert "last reply" not in row_caption(asked, "Docs")
    assert "last reply: Let an agent search step by step" in row_caption(answered, "Docs")
