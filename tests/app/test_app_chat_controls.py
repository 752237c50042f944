"""One conversation (issue 18): the Chat page's chosen documents, Stop, Regenerate, Edit and
resend, Copy, and files dropped into the chat. AppTest, fake embedder, extractive answers."""

from __future__ import annotations

import html
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ragcore.chat.response import ChatResponse
from ragcore.chat.titles import key_phrase_title
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.trace import Trace
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.runner import runner_for
from test_app_people import (  # noqa: F401 (fixtures: the speech and PEP 20, offline)
    APP,
    TIMEOUT,
    built_workspace,
    button,
    docs_ws,
    open_page,
)
from webapp.chat.chat_controls import INDEXING_NOTE, STOPPED_NOTE
from webapp.chat.chat_scope import file_names
from webapp.session import Session

STREAM_KEY = Session.streaming_reply.key

UKRAINE = "What did the speech say about Ukraine?"


def index_of(root: Path):
    return Workspace(root, embedder=FakeEmbedder()).load_index("docs")


def ask(at, question: str):
    at.chat_input[0].set_value(question).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def saved(root: Path, at) -> dict:
    return json.loads((root / "chats" / f"{at.query_params['chat']}.json").read_text())


def saved_title(root: Path) -> str:
    [path] = (root / "chats").glob("*.json")
    return json.loads(path.read_text())["title"]


def source_files(chat: dict) -> set[str]:
    return {s["file_name"] for m in chat["messages"] for s in m["sources"]}


def test_a_question_scoped_to_one_file_never_gets_passages_of_another(docs_ws):
    at = ask(open_page("chat"), UKRAINE)  # all documents: the speech answers
    assert "state_of_the_union.txt" in source_files(saved(docs_ws, at))
    button(at, "New chat").click().run()
    scope = at.sidebar.multiselect(key=f"scope_{at.session_state['open_chat'].id}")
    assert scope.options == ["pep-0020.rst", "state_of_the_union.txt"]
    pep = next(k for k, name in file_names(index_of(docs_ws)).items() if name == "pep-0020.rst")
    scope.select(pep).run()
    ask(at, UKRAINE)
    ask(at, "And what about inflation and prices?")
    chat = saved(docs_ws, at)
    assert source_files(chat) == {"pep-0020.rst"}
    assert any(c.value == "Used only “pep-0020.rst” (Documents to use)."
               for c in at.chat_message[1].caption)
    assert any(c.value.startswith("Used only") for c in at.chat_message[3].caption)  # live
    assert chat["settings"]["files"] and len(chat["settings"]["files"]) == 1
    # reopened by its link (a browser refresh keeps the URL): the choice is kept
    again = AppTest.from_file(APP, default_timeout=TIMEOUT)
    again.query_params["chat"] = chat["id"]
    again = open_page("chat", again.run())
    assert again.sidebar.multiselect(key=f"scope_{chat['id']}").value == [pep]


def test_regenerate_keeps_the_reply_it_replaces_as_a_version(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    ask(at, "What did it say about jobs?")
    first_reply = saved(docs_ws, at)["messages"][3]
    button(at, "Regenerate").click().run()
    assert not at.exception
    messages = saved(docs_ws, at)["messages"]
    assert [m["content"] for m in messages[:3]][2] == "What did it say about jobs?"
    assert len(messages) == 4 and messages[3]["created"] >= first_reply["created"]
    assert messages[2]["versions"] == [[messages[2]["versions"][0][0], first_reply]]
    assert len(at.chat_message) == 4 and any(m.value == "2/2" for m in at.markdown)
    at.button(key="version_back_2").click().run()  # "<": the first reply again
    assert saved(docs_ws, at)["messages"][3] == first_reply
    assert any(m.value == "1/2" for m in at.markdown)


def test_edit_and_resend_keeps_the_conversation_after_the_question(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    ask(at, "What did it say about jobs?")
    assert at.button(key="edit_2")  # a question just asked can be edited at once
    before = saved(docs_ws, at)["messages"]
    at.button(key="edit_0").click().run()
    at.text_area(key="edit_text_0").set_value("What did the speech say about inflation?")
    button(at, "Send edited question").click().run()
    assert not at.exception
    messages = saved(docs_ws, at)["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == "What did the speech say about inflation?"
    assert messages[0]["versions"] == [before]  # the turns that followed, kept
    assert saved(docs_ws, at)["title"] == key_phrase_title(messages[0]["content"])


def test_a_stopped_reply_is_kept_and_marked_stopped(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    at.session_state[STREAM_KEY] = {  # what a run left when Stop ended it mid-reply
        "chat": at.session_state["open_chat"], "question": "What about jobs?",
        "text": "The speech said jobs",
        "response": ChatResponse.from_text("unused", trace=Trace()),
        "settings": {"chat_mode": "condense_plus_context"}}
    at.run()
    assert not at.exception
    messages = saved(docs_ws, at)["messages"]
    assert messages[-1]["content"] == "The speech said jobs …"
    assert messages[-1]["trace"]["stopped_by_user"] is True
    assert any(c.value == STOPPED_NOTE for c in at.chat_message[3].caption)


def test_a_reply_is_copied_as_shown_checked_and_cited_not_as_drafted(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    reply = saved(docs_ws, at)["messages"][1]["content"]
    copied = html.unescape(next(
        h.proto.body.split('data-copy="')[1].split('"')[0] for h in at.get("html")
        if "rc-copy-reply_1" in h.proto.body))
    assert copied != reply and "[1]" in copied  # ragcore's markers, placed by the check
    assert "](#" not in copied and "\n\n[1] state_of_the_union.txt" in copied  # footnotes
    assert copied.split("[")[0].strip()[:30] in reply


def test_files_dropped_into_the_chat_are_indexed_with_progress_in_the_conversation(docs_ws):
    at = open_page("chat")
    at.chat_input[0].upload("harbour.txt", b"The harbour levy funds the lighthouse. " * 40)
    at.chat_input[0].set_value("What does the harbour levy fund?").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Added **harbour.txt**" in m.value for m in at.markdown)
    assert any(c.value == INDEXING_NOTE for c in at.caption)  # asked while it is indexed
    runner_for(docs_ws).wait_idle(timeout=60)
    ask(at, "What does the harbour levy fund?")
    chat = saved(docs_ws, at)
    assert chat["settings"]["dropped_files"][0]["files"] == ["harbour.txt"]
    assert "harbour.txt" in source_files(chat)  # indexed into the chat's index
    assert any(c.value.startswith("Indexing done") for c in at.caption)
    assert any(c.value == INDEXING_NOTE for c in at.chat_message[2].caption)  # kept with it


def test_a_reply_stopped_before_its_first_word_keeps_the_question(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    at.session_state[STREAM_KEY] = {  # Stop pressed while the model read the question
        "chat": at.session_state["open_chat"], "question": "What about jobs?", "text": "",
        "response": None, "settings": {}}
    at.run()
    messages = saved(docs_ws, at)["messages"]
    assert [m["content"] for m in messages[2:]] == ["What about jobs?", "…"]


def test_only_the_last_reply_offers_regenerate(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    ask(at, "What did it say about jobs?")
    assert [b.key for b in at.button if b.label == "Regenerate"] == ["regenerate_3"]


def test_a_chat_stopped_at_its_first_reply_is_titled_by_key_phrases(docs_ws):
    at = open_page("chat")
    at.session_state[STREAM_KEY] = {
        "chat": at.session_state["open_chat"], "question": "What did the speech say about "
        "Ukraine?", "text": "", "response": None, "settings": {}}
    at.run()
    assert saved_title(docs_ws) == key_phrase_title("What did the speech say about Ukraine?")


def test_offline_the_details_count_extractive_steps_not_llm_calls(docs_ws):
    (docs_ws / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
    at = ask(open_page("chat"), UKRAINE)
    captions = [c.value for c in at.chat_message[1].caption]
    assert any("extractive step" in c for c in captions), captions
    assert not any("LLM call" in c or "tokens" in c for c in captions), captions


def test_a_summary_request_in_a_scoped_chat_stays_within_the_chosen_file(docs_ws):
    at = open_page("chat")
    pep = next(k for k, name in file_names(index_of(docs_ws)).items() if name == "pep-0020.rst")
    at.sidebar.multiselect(key=f"scope_{at.session_state['open_chat'].id}").select(pep).run()
    ask(at, "summarise state_of_the_union.txt")  # not among the chosen files: searched instead
    assert not at.chat_message[1].markdown[0].value.startswith("**Summary of")
    assert source_files(saved(docs_ws, at)) <= {"pep-0020.rst"}
    ask(at, "Summarise the documents")
    assert at.chat_message[3].markdown[0].value.startswith("**The abstract of “The Zen of Python” (pep-0020.rst)**")


def test_a_reply_cut_short_by_opening_another_chat_is_kept_in_its_own_chat(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    first = at.query_params["chat"]
    button(at, "New chat").click().run()
    streaming = at.session_state["open_chat"]  # a new chat whose first reply is streaming
    at.session_state[STREAM_KEY] = {"chat": streaming, "question": "What about jobs?",
                                    "text": "Jobs", "response": None, "settings": {}}
    at.button(key=f"open_{first}").click().run()  # another chat opened mid-reply
    assert not at.exception
    kept = json.loads((docs_ws / "chats" / f"{streaming.id}.json").read_text())
    assert [m["content"] for m in kept["messages"]] == ["What about jobs?", "Jobs …"]
    assert at.query_params["chat"] == first and len(at.chat_message) == 2


def test_a_regenerated_reply_stopped_keeps_the_reply_it_was_to_replace(docs_ws):
    at = ask(open_page("chat"), UKRAINE)
    first = saved(docs_ws, at)["messages"][1]
    at.session_state[STREAM_KEY] = {  # Stop pressed while Regenerate's reply streamed
        "chat": at.session_state["open_chat"], "question": UKRAINE, "text": "The speech",
        "response": None, "settings": {}, "at": 0}
    at.run()
    assert not at.exception
    messages = saved(docs_ws, at)["messages"]
    assert [m["content"] for m in messages] == [UKRAINE, "The speech …"]
    assert messages[0]["versions"][0][1] == first  # the reply it was to replace, kept
    assert any(m.value == "2/2" for m in at.markdown)


def test_the_model_alone_mode_does_not_invite_questions_about_the_documents(docs_ws):
    """The walk: "Just the model, no documents" still read "Ask about your documents"."""
    at = open_page("chat")
    assert at.chat_input[0].placeholder.startswith("Ask about your documents")
    [mode] = [s for s in at.selectbox if s.label == "Chat mode"]
    mode.set_value("simple").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.chat_input[0].placeholder == "Ask the model (your documents are not searched)"
    assert any("your documents are not searched" in i.value for i in at.info)


def test_copy_reads_the_section_of_a_markdown_source_from_its_file(tmp_path):
    """Copy of a reply whose source has no page (issue 66's fourth walk): its footnote names
    the file and the section its passage is in, read from the file; a plain text without
    headings gets its name alone."""
    from ragcore.present import SourceListing, copied_text
    from ragcore.present.sources import ListedSource, SourceUse
    from ragcore.types import ScoredNode
    from webapp.chat.chat_controls import copied_places

    guide = tmp_path / "guide.md"
    guide.write_text("# Guide\n\nRead this.\n\n## Installing\n\n" + "Words here. " * 300
                     + "\n\nThe installer puts cargo in your path.\n")
    novel = tmp_path / "novel.txt"
    novel.write_text("It is a truth universally acknowledged.\n\n" + "More. " * 300)
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("docs", [guide, novel])
    nodes = list(ws.load_index("docs").all_nodes())
    cargo = next(n for n in nodes if "cargo" in n.text and "Installing" not in n.text)
    plain = next(n for n in nodes if n.metadata["file_name"] == "novel.txt")
    listing = SourceListing(shown=(ListedSource(1, ScoredNode(cargo, 0.9), SourceUse(spans=())),
                                   ListedSource(2, ScoredNode(plain, 0.5), SourceUse(spans=()))))
    copied = copied_text("Cargo is on your path. [[1]](#s-1) [[2]](#s-2)", listing,
                         copied_places(listing))
    assert copied.endswith("[1] guide.md, section “Installing”\n[2] novel.txt"), copied
