"""The terminal checks a reply as the app does, the index's words included (``held``): a name
the passages found never write but the index does ("President" in a speech) is not said to be
missing. `ragcore query` wrote "The documents don't mention President." for "At what monthly
price did the President want to cap the cost of insulin?" (benchmarks/llm, query_fresh)."""

from __future__ import annotations

import io

from ragcore.chat.response import ChatResponse
from ragcore.cli.render import write_reply
from ragcore.present.markers import AnswerCheck
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

QUESTION = "At what monthly price did the President want to cap the cost of insulin?"
PASSAGE = "We will cap the cost of insulin at $35 a month so everyone can afford it."


def written(held) -> str:
    response = ChatResponse.from_text("Not found in the documents.", trace=Trace(),
                                      mode="context",
                                      source_nodes=[ScoredNode(Node(text=PASSAGE), 0.8)])
    out = io.StringIO()
    write_reply(out, response, question=QUESTION, check=AnswerCheck(held=held))
    return out.getvalue()


def test_a_name_the_index_writes_elsewhere_is_not_said_missing():
    assert "don't mention President" in written(None)  # the passages alone: it looks missing
    text = written(lambda name: name == "President")  # the index writes it
    assert "don't mention" not in text and "The documents don't say" in text, text


def test_ragcore_chat_checks_with_its_indexs_words(monkeypatch):
    """The command hands ``write_reply`` the engines' check (``answer_check``), which reads the
    index's words (``index_words``), not None."""
    from types import SimpleNamespace

    from ragcore.cli import chat_command, progress

    class Postings:
        def holds(self, name: str) -> bool:
            return name == "President"

    class Talk:
        llm = None
        index = SimpleNamespace(embedder=None, embed_model_name="fake",
                                keyword_index=lambda: Postings())

        def ask(self, message, settings, *, trace):
            return SimpleNamespace(source_nodes=[PASSAGE], text="Not found in the documents.")

        def record(self, message, response, settings):
            pass

    asked = {}
    monkeypatch.setattr(chat_command, "write_reply", lambda out, response, **kw: asked.update(kw))
    monkeypatch.setattr(progress, "follow_turn", lambda response, llm: None)
    session = chat_command.ChatSession(Talk(), SimpleNamespace(retrieval_mode="hybrid"))
    chat_command.answer_turn(QUESTION, session, show_trace=False)
    held = asked["check"].held
    assert held is not None and held("President")
    assert not held("Elizabeth")
