"""Every path a reply is shown by carries a verdict, or says it read no passage: each chat mode,
first question and follow-up, through the app's own turn (``workspace.conversation``) and the
Chat page's display (``citing.marked_listing`` for a reply with sources, ``sourceless_reply``
without); the Query page and the Python API (``Response.shown``); the CLI's answer writer. The
test fails if any reply would be shown unchecked."""

from __future__ import annotations

import io

import pytest

from ragcore.chat import ChatMode
from ragcore.chat.sourceless import UNSEARCHED
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.fake import FakeLLM
from ragcore.present.grounded import STATED_LEAD, UNOBSERVED, UNREAD
from ragcore.workspace import Workspace
from ragcore.workspace.conversation import Conversation, TurnSettings, start_chat
from webapp.answers.citing import marked_listing
from webapp.chat.chat_turns import sourceless_reply, source_passage

# What a wrong answer is replaced with: the refusal, or the passage sentence the reader is sure
# states the answer ("**The documents say:** “... opened to traffic in 1932 ...”")
REPLACED = ("The documents don't", STATED_LEAD)

TEXT = ("The harbour bridge was opened to traffic in 1932 after eight years of building. "
        "Its arch spans 503 metres between the two pylons.")
FIRST, FOLLOW_UP = "When was the harbour bridge opened?", "And how long is its arch?"
REPLIES = ["**1932**.", "**503 metres**."]
# an agent searches (the tool's query engine answers), then answers
AGENT = ['Thought: search\nAction: search_documents\nAction Input: {"input": "%s"}',
         "**1932**.", "Thought: done\nAnswer: The bridge opened in 1932."]


@pytest.fixture
def workspace(tmp_path):
    notes = tmp_path / "bridge.txt"
    notes.write_text(TEXT, encoding="utf-8")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("docs", [notes])
    return ws


def shown(message, question: str, index) -> tuple[str, bool]:
    """What the Chat page shows of a recorded reply, and whether a verdict decided it."""
    if not message.sources:
        return sourceless_reply(message.content, message.trace), False
    text, listing = marked_listing(
        message.content, [source_passage(s, index.get_node) for s in message.sources],
        trace=message.trace, retrieval_mode="hybrid", question=question)
    return text, listing.verdict is not None


def replies_for(mode: str) -> list[str]:
    if mode in (ChatMode.REACT.value, ChatMode.BEST.value):
        first = [AGENT[0] % FIRST, *AGENT[1:]]
        return first + [AGENT[0] % FOLLOW_UP, "**503 metres**.",
                        "Thought: done\nAnswer: The arch spans 503 metres."]
    if mode == ChatMode.CONDENSE_QUESTION.value:  # the follow-up is condensed first
        return [REPLIES[0], "How long is the harbour bridge's arch?", REPLIES[1]]
    if mode == ChatMode.CONDENSE_PLUS_CONTEXT.value:
        return [REPLIES[0], "How long is the harbour bridge's arch?", REPLIES[1]]
    return list(REPLIES)


@pytest.mark.parametrize("mode", [m.value for m in ChatMode])
def test_every_chat_mode_first_and_follow_up_is_shown_checked(workspace, mode):
    index = workspace.load_index("docs")
    llm = FakeLLM(replies=replies_for(mode), default="**1932**.")
    talk = Conversation(workspace, start_chat("docs", mode), index, llm)
    for question in (FIRST, FOLLOW_UP):
        settings = TurnSettings(chat_mode=mode, retrieval_mode="hybrid")
        response = talk.ask(question, settings)
        response.text  # noqa: B018 - streamed to the end, as the page does
        message = talk.record(question, response, settings)
        text, decided = shown(message, question, index)
        if mode == ChatMode.SIMPLE.value:  # no documents: its caption says so
            assert not decided and text == message.content
            continue
        assert decided or text.startswith((UNREAD, UNOBSERVED, UNSEARCHED)), (
            mode, question, text)


def test_the_query_page_and_the_python_api_show_the_checked_answer(workspace):
    index = workspace.load_index("docs")
    response = index.as_query_engine(llm=FakeLLM(replies=["**1930**."])).query(FIRST)
    assert response.verdict is not None
    assert response.shown.startswith(REPLACED) and not response.shown.startswith("**1930**")


def test_the_cli_writes_the_checked_answer(workspace):
    from ragcore.cli.render import write_reply

    index = workspace.load_index("docs")
    response = index.as_query_engine(llm=FakeLLM(replies=["**1930**."])).query(FIRST)
    out = io.StringIO()
    write_reply(out, response, retrieval_mode="hybrid", question=FIRST)
    assert out.getvalue().startswith(REPLACED)
    assert "1930" not in out.getvalue().split("\n\n")[0]


@pytest.mark.parametrize("mode", [m.value for m in ChatMode if m is not ChatMode.SIMPLE])
def test_the_python_api_chat_engines_show_the_checked_reply(workspace, mode):
    """``index.as_chat_engine(mode).chat(...)`` carries what a person is shown, in every mode
    that searches: a wrong first answer and follow-up replaced by the verdict's refusal, or by
    the sentence the reader is sure states the answer."""
    from ragcore.memory import ChatMemory

    index = workspace.load_index("docs")
    wrong = {"**1932**.": "**1930**.", "**503 metres**.": "**620 metres**.",
             "Thought: done\nAnswer: The bridge opened in 1932.":
             "Thought: done\nAnswer: The bridge opened in 1930.",
             "Thought: done\nAnswer: The arch spans 503 metres.":
             "Thought: done\nAnswer: The arch spans 620 metres."}
    replies = [wrong.get(reply, reply) for reply in replies_for(mode)]
    engine = index.as_chat_engine(chat_mode=mode, llm=FakeLLM(replies=replies,
                                                              default="**1930**."))
    memory = ChatMemory(token_limit=2000)
    for question in (FIRST, FOLLOW_UP):
        reply = engine.chat(question, memory)
        shown = reply.shown  # asked first: an agent's passages come in only as it runs
        assert reply.text and reply.shown == shown  # the model's own words stay the text
        if reply.source_nodes:
            assert reply.verdict is not None, (mode, question)
            assert reply.shown.startswith(REPLACED), (mode, question, reply.shown)
        else:
            assert reply.shown.startswith((UNREAD, UNOBSERVED, UNSEARCHED)), (
                mode, question, reply.shown)


def test_a_python_api_chat_reply_that_read_no_passage_says_so(workspace):
    from ragcore.chat.response import ChatResponse
    from ragcore.present.markers import AnswerCheck
    from ragcore.trace import Trace

    reply = ChatResponse.from_text("It opened in 1932, as I said.", trace=Trace(),
                                   check=AnswerCheck(), question=FIRST)
    assert reply.shown.startswith(UNREAD) and reply.verdict is None
    plain = ChatResponse.from_text("Hello.", trace=Trace())
    assert plain.shown == "Hello."
