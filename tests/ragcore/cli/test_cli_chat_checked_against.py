"""`ragcore chat` checks a follow-up's reply against the standalone question it was rewritten to,
as the Chat page does (``webapp.chat.chat_turns.checked_against``): "And if q is 0.40?" asks
nothing on its own; a reply that read no passage says so first, as the page does."""

from __future__ import annotations

from types import SimpleNamespace

from ragcore.chat.response import ChatResponse
from ragcore.cli import chat_command, progress
from ragcore.present.grounded import UNREAD
from ragcore.present.markers import AnswerCheck


class Talk:
    def __init__(self, condensed: str) -> None:
        self.condensed = condensed
        self.llm = None
        self.index = SimpleNamespace(embedder=None, embed_model_name="fake")
        self.recorded = []

    def ask(self, message, settings, *, trace):
        if self.condensed:
            trace.notes["condensed_question"] = self.condensed
        if self.condensed is None:  # answered from the conversation: no passage read
            return ChatResponse.from_text("89 blocks, as I said.", trace=trace, mode="context",
                                          check=AnswerCheck(), question=message)
        return SimpleNamespace(source_nodes=["a passage"], text="89 blocks.")

    def record(self, message, response, settings):
        self.recorded.append(message)


def checked_question(monkeypatch, condensed: str) -> str:
    asked = {}
    monkeypatch.setattr(chat_command, "write_reply",
                        lambda out, response, **kw: asked.update(kw))
    monkeypatch.setattr(progress, "follow_turn", lambda response, llm: None)
    session = chat_command.ChatSession(Talk(condensed), SimpleNamespace(retrieval_mode="hybrid"))
    chat_command.answer_turn("And if q is 0.40?", session, show_trace=False)
    return asked["question"]


def test_a_follow_up_is_checked_as_the_question_it_was_rewritten_to(monkeypatch):
    rewritten = "How many blocks are needed when the attacker's share q is 0.40?"
    assert checked_question(monkeypatch, rewritten) == rewritten


def test_a_question_not_rewritten_is_checked_as_asked(monkeypatch):
    assert checked_question(monkeypatch, "") == "And if q is 0.40?"


def test_a_reply_that_read_no_passage_says_so_first(capsys):
    session = chat_command.ChatSession(Talk(None), SimpleNamespace(retrieval_mode="hybrid"))
    chat_command.answer_turn("And if q is 0.40?", session, show_trace=False)
    assert capsys.readouterr().out == f"assistant> {UNREAD}\n\n89 blocks, as I said.\n"


def test_the_rewrite_answer_and_check_are_one_turn_at_the_model(monkeypatch):
    """Inside ``slots.one_turn`` the engine keeps its threads (and its slots' caches) between a
    question's calls, as the Chat page asks it: the check reads only its new tokens."""
    from ragcore.llms.slots import current_turn

    turns = []

    class Asking(Talk):
        def ask(self, message, settings, *, trace):
            turns.append(current_turn())
            return super().ask(message, settings, trace=trace)

    monkeypatch.setattr(chat_command, "write_reply",
                        lambda out, response, **kw: turns.append(current_turn()))
    monkeypatch.setattr(progress, "follow_turn", lambda response, llm: None)
    session = chat_command.ChatSession(Asking(""), SimpleNamespace(retrieval_mode="hybrid"))
    chat_command.answer_turn("How many blocks?", session, show_trace=False)
    assert len(turns) == 2 and turns[0] is not None and turns[0] is turns[1]
