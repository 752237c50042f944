"""A summary request in Chat: the document's abstract at once, then Write a fresh summary, which
the model writes part by part (``webapp.chat.summary_view``). AppTest, a scripted model."""

from __future__ import annotations

import time

from test_app_pages import app_env, built_workspace, docs_ws, open_page  # noqa: F401

ABSTRACT = "**The abstract of “The Zen of Python” (pep-0020.rst)**"


def summary_calls(llm) -> list:
    """The model's calls but the chat's title (written once the first reply is shown)."""
    return [c for c in llm.calls if not c[-1].content.startswith("Write a title")]


def button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_a_kept_summary_offers_a_fresh_one_written_part_by_part(docs_ws, monkeypatch):
    from ragcore.llms import FakeLLM
    from webapp import state

    llm = FakeLLM(default="This part lists aphorisms.", model="fake-writer")
    monkeypatch.setattr(state, "current_llm", lambda: llm)
    at = open_page("chat")
    at.chat_input[0].set_value("Summarise pep 20").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.chat_message[1].markdown[0].value.startswith(ABSTRACT)
    assert summary_calls(llm) == []  # the abstract is the document's own: no model call
    button(at, "Write a fresh summary").click().run()
    assert not at.exception, [e.value for e in at.exception]
    fresh = at.chat_message[3].markdown[0].value
    assert at.chat_message[2].markdown[0].value == "Write a fresh summary of pep-0020.rst"
    assert fresh.startswith("**A fresh summary of “The Zen of Python”")
    assert "**Part 1 of" in fresh and "This part lists aphorisms." in fresh
    assert len(summary_calls(llm)) == fresh.count("**Part ")  # one model call per part
    assert not any(b.label == "Write a fresh summary" for b in at.button)  # none under it


class Closable:
    """A model whose reply records being closed (the packaged model's close stops llama.cpp)."""

    model, context_window, num_output = "fake-writer", 4096, 256

    def __init__(self) -> None:
        self.calls, self.closed = 0, []

    def stream(self, messages):
        self.calls += 1
        try:
            for word in ["Words ", "of ", "this ", "part. "] * 50:
                time.sleep(0.02)  # as a model writes: a part takes seconds
                yield word
        finally:
            self.closed.append(self.calls)


def test_stop_while_the_model_writes_a_part_closes_its_reply_and_runs_no_other(docs_ws):
    """As the page reads a reply (``pulled`` over ``kept_stream``): Stop mid-part."""
    from ragcore.chat import pulled
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.conversation import Conversation, TurnSettings, start_chat
    from webapp.chat.chat_controls import kept_stream

    ws = Workspace(docs_ws, embedder=FakeEmbedder())
    llm = Closable()
    talk = Conversation(ws, start_chat("docs", "condense_plus_context"), ws.load_index("docs"),
                        llm)
    reply = talk.ask("Write a fresh summary of pep-0020.rst", TurnSettings())
    kept = {"text": ""}
    chunks = pulled(kept_stream(kept, reply), every=0.05)
    for chunk in chunks:
        if chunk and "part. " in kept["text"]:
            break  # Stop: the page's run ends, the reader stops
    chunks.close()
    deadline = time.monotonic() + 5
    while not llm.closed and time.monotonic() < deadline:
        time.sleep(0.02)
    assert llm.closed == [1] and llm.calls == 1  # the part's reply stopped, no other begun


def test_the_app_writes_summaries_while_idle_only_with_the_packaged_model(docs_ws, monkeypatch):
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.llms import FakeLLM
    from ragcore.workspace import Workspace
    from ragcore.workspace.summaries import open_summary_cache, unsummarized_files
    from webapp import idle_writer

    started = []
    monkeypatch.setattr(idle_writer, "_writer", lambda root, model, llm: started.append(model))
    idle_writer.keep_writing(docs_ws, FakeLLM(model="fake-writer"))
    idle_writer.keep_writing(docs_ws, None)
    assert started == []  # a server model writes at ingest; a scripted one writes none
    packaged = FakeLLM(default="A part.", model="local:qwen2.5-coder-1.5b")
    packaged.name = "qwen2.5-coder-1.5b"  # as the packaged model names itself
    idle_writer.keep_writing(docs_ws, packaged)
    assert started == ["local:qwen2.5-coder-1.5b"]
    ws = Workspace(docs_ws, embedder=FakeEmbedder())
    index, uid, cache = ws.load_index("docs"), ws.record("docs").uid, open_summary_cache(docs_ws)
    monkeypatch.setattr(idle_writer, "machine_idle", lambda llm=None: True)
    idle_writer._one_file(ws, packaged)  # one idle moment: one file
    assert len(unsummarized_files(cache, uid, index, packaged)) == 1
    monkeypatch.setattr(idle_writer, "machine_idle", lambda llm=None: False)
    idle_writer._one_file(ws, packaged)  # busy: nothing more
    assert len(unsummarized_files(cache, uid, index, packaged)) == 1
