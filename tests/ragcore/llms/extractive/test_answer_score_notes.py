"""The extractive answerer's score goes out of band (issue 32): into the turn's trace notes
(``trace.notes["answer_score"]``), never into the answer's text, for a query in every response
mode, a chat turn, the CLI's output and a saved chat; chats saved with the score in their text
by earlier versions still read cleanly."""

from __future__ import annotations

import json

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import LABEL, ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.synthesis import ResponseMode
from ragcore.trace import Trace
from ragcore.types import Document
from ragcore.workspace.chats import SavedChat
from test_cli_answers import run  # noqa: F401 (fixture)

QUESTION = "What does the policy engine grant?"
DOCS = [
    Document("Zero trust architecture assumes no implicit trust in assets or accounts. "
             "A policy engine grants access to each resource per session.",
             metadata={"file_name": "trust.txt"}),
    Document("The policy engine decides using identity, device state and behaviour.",
             metadata={"file_name": "engine.txt"}),
    Document("# Garden\n\nTomatoes need sun, water and patience.",
             metadata={"file_name": "garden.md"}),
]
# The modes whose answer is one answer to the question by the extractive answerer's judgement:
# accumulate lists one per passage, tree_summarize merges each passage's best, generation and
# no_text read no passages.
SCORED_MODES = {ResponseMode.COMPACT, ResponseMode.REFINE, ResponseMode.SIMPLE_SUMMARIZE,
                ResponseMode.COMPACT_ACCUMULATE}


@pytest.fixture(scope="module")
def index():
    return VectorStoreIndex.from_documents(DOCS, embedder=FakeEmbedder())


def assert_scored(trace: Trace) -> None:
    score = trace.notes.get("answer_score")
    assert isinstance(score, float) and 0.0 <= score <= 1.0, trace.notes


@pytest.mark.parametrize("mode", list(ResponseMode))
def test_no_response_mode_writes_the_score_into_the_answer(index, mode):
    engine = index.as_query_engine(llm=ExtractiveLLM(), response_mode=mode, similarity_top_k=3)
    trace = Trace()
    response = engine.query(QUESTION, trace=trace)
    text = response.text
    assert "[score" not in text
    assert all("[score" not in call.reply for call in trace.llm_calls)
    if mode in SCORED_MODES:
        assert f"{LABEL}: " in text, text
        assert_scored(trace)
        assert response.trace is trace
    else:
        assert "answer_score" not in trace.notes


@pytest.mark.parametrize("chat_mode", ["context", "condense_plus_context", "condense_question",
                                       "react"])
def test_a_chat_turn_states_its_score_in_the_trace(index, chat_mode):
    engine = index.as_chat_engine(chat_mode=chat_mode, llm=ExtractiveLLM(), similarity_top_k=3)
    memory = ChatMemory.from_llm(ExtractiveLLM())
    for question in (QUESTION, "And what does it decide with?"):  # a follow-up condenses
        trace = Trace()
        reply = engine.chat(question, memory, trace=trace)
        assert "[score" not in reply.text and reply.text.startswith(LABEL + ":"), reply.text
        assert_scored(reply.trace)
    assert all("[score" not in m.content for m in memory.messages)


def test_a_backend_without_notes_is_used_as_it_is():
    from ragcore.llms.base import noting
    from ragcore.present.answer_score import stated_score

    llm = FakeLLM(["a reply"])
    assert noting(llm, {}) is llm
    notes: dict = {}
    noted = noting(ExtractiveLLM(), notes)
    assert noted is not None and notes == {}  # nothing stated before it replies
    assert stated_score(Trace()) is None and stated_score(None) is None


def test_the_cli_prints_the_score_on_its_own_line_and_saves_it_in_the_trace(run, tmp_path):
    code, out, _ = run("query", QUESTION, "--index", "notes", "--llm", "extractive")
    assert code == 0 and "[score" not in out
    assert len([line for line in out.splitlines() if line.startswith("Answer score ")]) == 1
    code, out, err = run("chat", "--index", "notes", "--llm", "extractive", "--save",
                         stdin=f"{QUESTION}\n")
    assert code == 0 and "[score" not in out
    assert len([line for line in out.splitlines() if line.startswith("Answer score ")]) == 1
    [path] = (tmp_path / "ws" / "chats").glob("*.json")
    reply = json.loads(path.read_text())["messages"][1]
    assert "[score" not in reply["content"] and reply["content"].startswith(LABEL + ":")
    assert reply["trace"]["answer_score"] == reply["trace"]["notes"]["answer_score"]


def test_a_chat_saved_with_the_score_in_its_text_reads_cleanly():
    old = {"format": "ragcore-chat", "version": 1, "index": "notes", "chat_mode": "context",
           "messages": [
               {"role": "user", "content": "Who?"},
               {"role": "assistant", "content": f"{LABEL} [score 0.82]: **Irene Adler**\n- She.",
                "trace": {"chat_mode": "context"}},
               {"role": "assistant", "content": f"{LABEL} [score 0.40]: not found.",
                "trace": {"answer_score": 0.4, "not_found_under": 0.35}},
           ]}
    chat = SavedChat.from_dict(old)
    first, second = chat.messages[1], chat.messages[2]
    assert first.content == f"{LABEL}: **Irene Adler**\n- She."
    assert first.trace == {"chat_mode": "context", "answer_score": 0.82}
    assert second.content == f"{LABEL}: not found."
    assert second.trace == {"answer_score": 0.4, "not_found_under": 0.35}
    assert chat.messages[0].content == "Who?"
