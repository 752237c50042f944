"""The Chat page, headless (AppTest): a file summarised by its name, the simple mode's caption,
chats titled by their key phrases, grouped by day with one pinned, listed by index names
(issue 18, defects 4, 5 and 6)."""

from __future__ import annotations

import json

from test_app_pages import (  # noqa: F401 (fixtures)
    app_env,
    built_workspace,
    button,
    docs_ws,
    open_page,
)
from streamlit.testing.v1 import AppTest

from ragcore.workspace import Workspace
from ragcore.workspace.names import set_display_name


def chat(at: AppTest, message: str) -> AppTest:
    at.chat_input[0].set_value(message).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def saved_titles(at: AppTest) -> list[str]:
    return [b.label for b in at.sidebar.button if b.key and b.key.startswith("open_")]


def test_summarise_a_file_named_with_its_extension_or_in_words(docs_ws):
    at = chat(open_page("chat"), "summarise state_of_the_union.txt")
    assert at.chat_message[1].markdown[0].value.startswith("**Summary of state_of_the_union.txt**")
    chat(at, "Summarise the state of the union speech")
    assert at.chat_message[3].markdown[0].value.startswith("**Summary of state_of_the_union.txt**")
    assert any("Answered from the document's summary" in c.value for c in at.chat_message[3].caption)


def test_the_simple_mode_says_it_did_not_search(docs_ws):
    at = open_page("chat")
    at.sidebar.selectbox(key="chat_mode_choice").set_value("simple").run()
    chat(at, "What did the speech say about Ukraine?")
    captions = [c.value for c in at.chat_message[1].caption]
    assert not any("search of the passages" in c for c in captions), captions
    assert any("does not search your documents" in c for c in captions), captions
    details = [c.value for c in at.caption if c.value.startswith("Chat mode simple")]
    assert details and "LLM call" not in details[0], details  # offline: no LLM calls


def test_chats_are_titled_by_key_phrases_grouped_by_day_and_pinned_first(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    button(at, "New chat").click().run()
    chat(at, "What does the zen of Python say about errors?")
    assert sorted(saved_titles(at)) == ["Speech, Ukraine", "Zen of Python, errors"]
    headings = [m.value for m in at.sidebar.markdown if m.value.startswith("**")]
    assert "**Today**" in headings and "**Pinned**" not in headings
    last = [b for b in at.sidebar.button if b.key and b.key.startswith("open_")][-1]
    chat_id = last.key.removeprefix("open_")
    at.sidebar.button(key=f"pin_{chat_id}").click().run()
    assert saved_titles(at)[0] == last.label  # pinned first
    headings = [m.value for m in at.sidebar.markdown if m.value.startswith("**")]
    assert headings.index("**Pinned**") < headings.index("**Today**")
    assert json.loads((docs_ws / "chats" / f"{chat_id}.json").read_text())["pinned"] is True


def test_saved_chats_show_the_indexes_typed_name_not_its_folder(docs_ws):
    set_display_name(Workspace(docs_ws), "docs", "Speeches & PEPs")
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    captions = [c.value for c in at.sidebar.caption]
    assert any(c.endswith("· Speeches & PEPs") for c in captions), captions
    at.sidebar.text_input(key="chat_search").set_value("speeches").run()  # the index's name
    assert saved_titles(at) == ["Speech, Ukraine"]
    at.sidebar.text_input(key="chat_search").set_value("owls").run()
    assert saved_titles(at) == []


def test_a_saved_chat_s_tooltip_counts_the_versions_regenerate_kept(tmp_path):
    # Issue 66: a chat whose reply was regenerated twice said only "2 messages".
    from ragcore.workspace.chats import ChatStore, SavedChat, new_message
    from ragcore.workspace.conversation.versions import fork
    from webapp.chat.chat_list import row_help

    chat = SavedChat(index="docs", chat_mode="condense_plus_context")
    chat.add_message("user", "Who keeps the lighthouse?")
    chat.add_message("assistant", "The keepers.")
    for again in ("The two keepers.", "The keepers, in turns."):
        fork(chat, 1, [new_message("assistant", again)])
    store = ChatStore(tmp_path / "chats")
    store.save(chat)
    said = row_help(store.list()[0])
    assert said.startswith("2 messages, 2 other versions kept, started "), said
    single = SavedChat(index="docs", chat_mode="simple")
    single.add_message("user", "Hello?")
    store.save(single)
    assert row_help(next(s for s in store.list() if s.id == single.id)).startswith("1 message, ")
