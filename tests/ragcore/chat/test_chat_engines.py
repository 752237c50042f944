"""Scripted conversations for every chat mode: what each LLM call contains (history, condensed
question, context), what streams, what the memory holds, and what the trace shows."""

from __future__ import annotations

import pytest

from ragcore.agent import FunctionCallingAgent, ReActAgent
from ragcore.chat import (
    CHAT_MODE_DESCRIPTIONS,
    ChatEngine,
    ChatMode,
    CondensePlusContextChatEngine,
    CondenseQuestionChatEngine,
    ContextChatEngine,
    SimpleChatEngine,
    best_chat_mode,
)
from ragcore.errors import ConfigError, LLMConnectionError
from ragcore.engines.from_index import chat_engine_from_index
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.query import QueryEngine
from ragcore.synthesis import Synthesizer
from ragcore.tools import FunctionTool
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode

PASSAGES = {
    "report": "The annual report was written by Dana Reyes in 2021.",
    "pages": "The annual report has 48 pages and four appendices.",
    "cats": "Cats sleep for most of the day.",
}
FOLLOW_UP = "and what about its page count?"
STANDALONE = "What is the page count of the annual report?"


class KeywordRetriever:
    """Finds passages sharing a word with the query (records every query)."""

    def __init__(self):
        self.queries: list[str] = []

    def retrieve(self, query, *, trace=None):
        self.queries.append(query)
        words = {w.strip("?.,").lower() for w in query.split()}
        found = [
            ScoredNode(Node(text, node_id=key, metadata={"file_name": f"{key}.txt"}), 0.5)
            for key, text in PASSAGES.items()
            if words & {w.strip(".").lower() for w in text.split()} - {"the", "of", "and", "a"}
        ]
        if trace is not None:
            with trace.stage("retrieve", query=query) as detail:
                detail["nodes"] = len(found)
        return found


class FakeIndex:
    def __init__(self):
        self.retriever = KeywordRetriever()

    def as_retriever(self, *, similarity_top_k=4, **_):
        if similarity_top_k < 1:  # as VectorStoreIndex.as_retriever refuses it
            raise ConfigError(f"similarity_top_k ({similarity_top_k}) must be at least 1")
        return self.retriever


def contents(messages: list[Message]) -> str:
    return "\n".join(m.content for m in messages)


def two_turns(engine, llm: FakeLLM, memory: ChatMemory, trace: Trace | None = None):
    first = engine.chat("Who wrote the annual report?", memory)
    first_text = first.text
    second = engine.chat(FOLLOW_UP, memory, trace=trace)
    return first_text, second


def test_simple_chat_sends_system_prompt_and_history():
    llm = FakeLLM(["Hi there!", "You said hello."])
    engine = SimpleChatEngine(llm, system_prompt="Be brief.")
    memory = ChatMemory()
    assert engine.chat("hello", memory).text == "Hi there!"
    response = engine.chat("what did I say?", memory)
    assert list(response) == ["You sai", "d hello", "."]  # streamed in the LLM's chunks
    assert llm.calls[1] == [
        Message("system", "Be brief."),
        Message("user", "hello"),
        Message("assistant", "Hi there!"),
        Message("user", "what did I say?"),
    ]
    assert [m.content for m in memory.messages][-1] == "You said hello."
    assert response.source_nodes == [] and response.mode == "simple"


def test_condense_question_rewrites_the_follow_up_and_queries_with_it():
    llm = FakeLLM(["Dana Reyes wrote it.", STANDALONE, "It has 48 pages."])
    retriever = KeywordRetriever()
    engine = CondenseQuestionChatEngine(QueryEngine(retriever, Synthesizer(llm)), llm=llm)
    memory = ChatMemory()
    trace = Trace()
    first_text, second = two_turns(engine, llm, memory, trace)
    assert first_text == "Dana Reyes wrote it."
    assert second.text == "It has 48 pages."
    assert len(llm.calls) == 3  # first turn: no condense call (nothing to condense)
    condense = contents(llm.calls[1])
    assert "Conversation:" in condense
    assert "user: Who wrote the annual report?\nassistant: Dana Reyes wrote it." in condense
    assert f"Follow-up question: {FOLLOW_UP}" in condense
    assert retriever.queries == ["Who wrote the annual report?", STANDALONE]
    assert f"Question: {STANDALONE}" in contents(llm.calls[2])
    assert second.text == "It has 48 pages."
    assert trace.notes["condensed_question"] == STANDALONE
    assert [c.purpose for c in trace.llm_calls][0] == "condense"
    assert {s.node.node_id for s in second.source_nodes} >= {"pages"}
    assert [m.content for m in memory.messages][-2:] == [FOLLOW_UP, "It has 48 pages."]


def test_context_chat_retrieves_with_the_message_and_puts_context_in_the_system_prompt():
    llm = FakeLLM(["Dana Reyes.", "Cats sleep a lot."])
    retriever = KeywordRetriever()
    engine = ContextChatEngine(retriever, llm=llm, system_prompt="You are a librarian.")
    memory = ChatMemory()
    _ = engine.chat("Who wrote the annual report?", memory).text
    response = engine.chat("Do cats sleep?", memory)
    assert response.text == "Cats sleep a lot."
    assert retriever.queries == ["Who wrote the annual report?", "Do cats sleep?"]
    system, *history = llm.calls[1]
    assert system.role == "system" and system.content.startswith("You are a librarian.")
    assert "Context:\nfile_name: cats.txt\n\n" + PASSAGES["cats"] in system.content
    assert PASSAGES["report"] not in system.content
    assert [m.content for m in history] == [
        "Who wrote the annual report?", "Dana Reyes.", "Do cats sleep?"
    ]
    assert [s.node.node_id for s in response.source_nodes] == ["cats"]
    assert response.sources()[0].file == "cats.txt"


def test_context_chat_does_not_condense_so_a_vague_follow_up_retrieves_poorly():
    llm = FakeLLM(["Dana Reyes wrote it.", "No idea."])
    retriever = KeywordRetriever()
    engine = ContextChatEngine(retriever, llm=llm)
    _ = two_turns(engine, llm, ChatMemory())[1].text
    assert retriever.queries[1] == FOLLOW_UP


def test_condense_plus_context_skips_condense_first_then_retrieves_with_the_standalone_question():
    llm = FakeLLM(["Dana Reyes wrote it.", STANDALONE, "48 pages."])
    retriever = KeywordRetriever()
    engine = CondensePlusContextChatEngine(retriever, llm=llm)
    memory = ChatMemory()
    trace = Trace()
    first_text, second = two_turns(engine, llm, memory, trace)
    assert first_text == "Dana Reyes wrote it."
    assert second.text == "48 pages."
    assert retriever.queries == ["Who wrote the annual report?", STANDALONE]
    assert len(llm.calls) == 3
    assert "Follow-up question: and what about its page count?" in contents(llm.calls[1])
    answer_call = llm.calls[2]
    assert PASSAGES["pages"] in answer_call[0].content  # context for the standalone question
    assert [m.content for m in answer_call[1:]] == [
        "Who wrote the annual report?", "Dana Reyes wrote it.", FOLLOW_UP  # as the user wrote it
    ]
    assert second.text == "48 pages."
    assert trace.notes["condensed_question"] == STANDALONE
    assert [c.purpose for c in trace.llm_calls] == ["condense", "context chat"]
    assert "pack context" in [s.name for s in trace.stages]


def test_first_turn_notes_that_condensing_was_skipped():
    llm = FakeLLM(["ok"])
    trace = Trace()
    _ = CondensePlusContextChatEngine(KeywordRetriever(), llm=llm).chat(
        "Who wrote the report?", ChatMemory(), trace=trace
    ).text
    assert trace.notes["condensed_question"] == "Who wrote the report?"
    assert "first message" in trace.notes["condense_skipped"]


def test_context_is_cut_to_fit_a_small_window():
    big = "word " * 3000
    llm = FakeLLM(["ok"], context_window=1024, num_output=128)

    class BigRetriever:
        def retrieve(self, query, *, trace=None):
            return [ScoredNode(Node(big, node_id=f"n{i}"), 1.0) for i in range(3)]

    engine = ContextChatEngine(BigRetriever(), llm=llm)
    response = engine.chat("hi", ChatMemory())
    _ = response.text
    from ragcore.tokens import count_tokens

    assert sum(count_tokens(m.content) + 4 for m in llm.calls[0]) <= 1024 - 128
    assert [s.node.node_id for s in response.source_nodes] == ["n0"]


def test_a_failed_stream_leaves_the_memory_without_a_half_answer():
    def broken(messages):
        raise LLMConnectionError("the server went away")

    llm = FakeLLM([broken, "Recovered."])
    engine = CondensePlusContextChatEngine(KeywordRetriever(), llm=llm)
    memory = ChatMemory()
    with pytest.raises(LLMConnectionError):
        _ = engine.chat("Who wrote the annual report?", memory).text
    assert [m.role for m in memory.messages] == ["user"]
    assert engine.chat("Who wrote the annual report?", memory).text == "Recovered."
    assert [m.role for m in memory.messages] == ["user", "assistant"]


def test_an_abandoned_stream_saves_nothing_until_it_completes():
    llm = FakeLLM(["a long answer in chunks"], chunk_size=2)
    memory = ChatMemory()
    response = SimpleChatEngine(llm).chat("hi", memory)
    next(iter(response))
    assert [m.role for m in memory.messages] == ["user"]
    assert response.text == "a long answer in chunks"  # reading on completes and saves
    assert memory.messages[-1].content == "a long answer in chunks"


@pytest.mark.parametrize(
    "mode, engine_type",
    [
        ("simple", SimpleChatEngine),
        ("condense_question", CondenseQuestionChatEngine),
        ("context", ContextChatEngine),
        (ChatMode.CONDENSE_PLUS_CONTEXT, CondensePlusContextChatEngine),
        ("react", ReActAgent),
    ],
)
def test_chat_engine_from_index_builds_every_mode(mode, engine_type):
    engine = chat_engine_from_index(FakeIndex(), chat_mode=mode, llm=FakeLLM(), similarity_top_k=2)
    assert type(engine) is engine_type
    memory = ChatMemory()
    reply = engine.chat("Who wrote the annual report?", memory)
    assert reply.text == "fake answer"  # every engine answers chat(message, memory) ...
    assert [(m.role, m.content) for m in memory.messages] == [  # ... and remembers the turn
        ("user", "Who wrote the annual report?"), ("assistant", "fake answer"),
    ]


def test_best_picks_for_the_llm():
    class TextOnlyLLM:
        model, context_window, num_output = "ollama:tiny", 4096, 256

        def stream(self, messages):
            yield "ok"

    text_only = TextOnlyLLM()
    assert best_chat_mode(text_only) == "condense_plus_context"
    assert best_chat_mode(FakeLLM()) == "function_calling"  # FakeLLM has chat_with_tools
    engine = chat_engine_from_index(FakeIndex(), llm=text_only)
    assert isinstance(engine, CondensePlusContextChatEngine)
    assert isinstance(chat_engine_from_index(FakeIndex(), llm=FakeLLM()), FunctionCallingAgent)


def test_best_with_extra_tools_and_no_tool_calls_uses_react():
    class TextOnlyLLM:
        model, context_window, num_output = "ollama:tiny", 4096, 256

        def stream(self, messages):
            yield "ok"

    def today() -> str:
        """Today's date."""
        return "2026-11-22"

    tool = FunctionTool.from_defaults(today)
    agent = chat_engine_from_index(FakeIndex(), llm=TextOnlyLLM(), tools=[tool])
    assert isinstance(agent, ReActAgent)
    assert list(agent.tools) == ["search_documents", "today"]


def test_bad_options_are_refused_with_the_fix():
    with pytest.raises(ConfigError, match="condense_plus_context"):
        chat_engine_from_index(FakeIndex(), chat_mode="openai", llm=FakeLLM())
    with pytest.raises(ConfigError, match="needs an LLM"):
        chat_engine_from_index(FakeIndex(), chat_mode="simple", llm="gpt-4")
    with pytest.raises(ConfigError, match="similarity_top_k"):
        chat_engine_from_index(FakeIndex(), chat_mode="context", llm=FakeLLM(), similarity_top_k=0)
    with pytest.raises(ConfigError, match="only used by agents"):
        chat_engine_from_index(FakeIndex(), chat_mode="context", llm=FakeLLM(), tools=[object()])
    with pytest.raises(ConfigError, match="ChatMemory"):
        SimpleChatEngine(FakeLLM()).chat("hi", [])  # type: ignore[arg-type]


def test_every_mode_has_a_one_line_description():
    assert set(CHAT_MODE_DESCRIPTIONS) == set(ChatMode)
    assert all("\n" not in text and text.endswith(".") for text in CHAT_MODE_DESCRIPTIONS.values())


class ManyPassages:
    """Twenty distinct passages of about forty tokens each, whatever the query."""

    def retrieve(self, query, *, trace=None):
        return [
            ScoredNode(Node(f"Passage {i}: " + " ".join(f"w{i}x{j}" for j in range(30)),
                            node_id=f"p{i}"), 1.0 - i / 100)
            for i in range(20)
        ]


def long_conversation(turns: int = 40) -> ChatMemory:
    memory = ChatMemory(token_limit=20_000)
    for i in range(turns):
        memory.put(Message("user", f"question {i}: " + "what about this? " * 8))
        memory.put(Message("assistant", f"answer {i}: " + "it is so. " * 8))
    return memory


@pytest.mark.parametrize("share", [0.2, 0.5, 0.8])
def test_context_share_is_what_passages_keep_when_the_conversation_wants_the_rest(share):
    from ragcore.prompts import FIELD_MARGIN_TOKENS, message_tokens
    from ragcore.prompts.chat import CONTEXT_CHAT, NO_PASSAGES
    from ragcore.tokens import count_tokens

    llm = FakeLLM(context_window=2000, num_output=200)
    engine = ContextChatEngine(ManyPassages(), llm=llm, context_share=share, history_turns=None)
    trace = Trace()
    memory = long_conversation()
    reply = engine.chat("tell me everything", memory, trace=trace)
    reply.text
    fixed = message_tokens(CONTEXT_CHAT.format(context=NO_PASSAGES)[0])
    room = 2000 - 200 - fixed - message_tokens(Message("user", "tell me everything"))
    budget = int(room * share) - 2 * FIELD_MARGIN_TOKENS
    packed = next(stage.detail for stage in trace.stages if stage.name == "pack context")
    assert packed["budget"] == budget
    prompt = llm.calls[-1]
    system = prompt[0].content
    used = [s.node.node_id for s in reply.source_nodes]
    assert used == [f"p{i}" for i in range(len(used))]  # best first, none skipped
    assert all(f"Passage {i}:" in system for i in range(len(used)))
    assert f"Passage {len(used)}:" not in system  # the next one did not fit
    passages = sum(count_tokens(s.node.text) for s in reply.source_nodes)
    following = ManyPassages().retrieve("")[len(used)].node.text
    assert passages <= budget < passages + count_tokens(following) + len(used) * 4  # full
    # The conversation fills the rest, newest turns first, ending with the message as written.
    history = prompt[1:]
    assert history[-1] == Message("user", "tell me everything")
    assert history[-2].content.startswith("answer 39:")
    turn = message_tokens(memory.messages[0]) + message_tokens(memory.messages[1])
    assert 2000 - 200 - turn < sum(message_tokens(m) for m in prompt) <= 2000 - 200


def test_passages_use_the_room_the_conversation_does_not_need():
    from ragcore.prompts import message_tokens

    llm = FakeLLM(context_window=2000, num_output=200)
    engine = ContextChatEngine(ManyPassages(), llm=llm, context_share=0.2)
    reply = engine.chat("tell me everything", ChatMemory())
    reply.text
    sent = sum(message_tokens(m) for m in llm.calls[-1])
    passage = message_tokens(Message("user", ManyPassages().retrieve("")[0].node.text))
    assert 2000 - 200 - passage < sent <= 2000 - 200  # full: no room for one more passage
    assert len(reply.source_nodes) >= 10  # far more than a fifth of the room holds


@pytest.mark.parametrize("engine_class", [ContextChatEngine, CondensePlusContextChatEngine])
def test_an_answer_carries_the_latest_turn_so_a_long_chat_reads_what_the_second_question_did(
    engine_class,
):
    # Issue 65: the answer's passages change every turn, so the history after them is read anew;
    # with the memory's whole limit the twentieth answer read ~200 tokens more than the second.
    from ragcore.prompts import message_tokens

    llm = FakeLLM(default="It is so, as the report says.")
    engine = engine_class(ManyPassages(), llm=llm)
    memory = ChatMemory()
    sizes = []
    for i in range(20):
        engine.chat(f"What does passage {i} say about its words?", memory).text
        sizes.append(sum(message_tokens(m) for m in llm.calls[-1]))
        history = llm.calls[-1][1:-1]
        assert [m.role for m in history] == (["user", "assistant"] if i else [])
        if i:
            assert history[0].content == f"What does passage {i - 1} say about its words?"
    assert len(set(sizes[1:])) == 1 and sizes[0] < sizes[1]


def test_llm_none_is_the_default_from_the_one_resolver(monkeypatch):
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    engine = chat_engine_from_index(FakeIndex(), chat_mode="simple", llm=None)
    assert type(engine.llm).__name__ == "ExtractiveLLM"
