"""aquery / achat / astream_chat are thin asyncio drivers of the same plans: same answers,
same prompts, same memory as the sync calls (parity), and the event loop stays free."""

from __future__ import annotations

import asyncio

from ragcore import Document, ExtractiveLLM, FakeLLM, VectorStoreIndex
from ragcore.chat import ChatSession, SimpleChatEngine
from ragcore.trace import Trace

TEXTS = [
    "The Louvre is a museum in Paris. It holds the Mona Lisa.",
    "Kyoto was the capital of Japan for over a thousand years. It has many temples.",
    "The Rhine flows through Switzerland, Germany and the Netherlands.",
]


def make_index(fake_embedder) -> VectorStoreIndex:
    docs = [Document(text, doc_id=f"doc{i}") for i, text in enumerate(TEXTS)]
    return VectorStoreIndex.from_documents(docs, embedder=fake_embedder)


def prompts(trace: Trace) -> list:
    return [[m.content for m in call.messages] for call in trace.llm_calls]


def test_aquery_gives_what_query_gives(fake_embedder):
    engine = make_index(fake_embedder).as_query_engine(llm=ExtractiveLLM(), similarity_top_k=2)
    sync_trace, async_trace = Trace(), Trace()
    sync = engine.query("Which museum holds the Mona Lisa?", trace=sync_trace)
    answer = asyncio.run(engine.aquery("Which museum holds the Mona Lisa?", trace=async_trace))

    assert answer.done and answer.text == sync.text and "Louvre" in answer.text
    assert [n.node_id for n in answer.source_nodes] == [n.node_id for n in sync.source_nodes]
    assert prompts(async_trace) == prompts(sync_trace)


def test_async_response_gen_streams_the_same_chunks(fake_embedder):
    engine = make_index(fake_embedder).as_query_engine(llm=FakeLLM(default="one two three four"))
    response = engine.query("Where is Kyoto?")

    async def collect() -> list[str]:
        return [chunk async for chunk in response.async_response_gen()]

    chunks = asyncio.run(collect())
    assert len(chunks) > 1 and "".join(chunks) == "one two three four"
    assert list(response.response_gen) == chunks  # the same stream, replayed


def test_achat_and_astream_chat_match_chat():
    def echo(messages):
        return f"you said {messages[-1].content} ({len(messages)} messages)"

    sync = ChatSession(SimpleChatEngine(FakeLLM(default=echo)))
    sync_replies = [sync.chat("hello").text, sync.stream_chat("again").text]

    session = ChatSession(SimpleChatEngine(FakeLLM(default=echo)))

    async def talk() -> list[str]:
        first = await session.achat("hello")
        streamed = await session.astream_chat("again")
        return [first.text, "".join([c async for c in streamed.async_response_gen()])]

    assert asyncio.run(talk()) == sync_replies == [
        "you said hello (1 messages)", "you said again (3 messages)"]
    assert session.chat_history == sync.chat_history


def test_the_event_loop_keeps_running_while_a_query_runs(fake_embedder):
    def slow_reply(messages):
        import time

        time.sleep(0.3)
        return "done"

    engine = make_index(fake_embedder).as_query_engine(llm=FakeLLM(default=slow_reply))

    async def both() -> int:
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.create_task(tick())
        await engine.aquery("Where does the Rhine flow?")
        ticker.cancel()
        return ticks

    assert asyncio.run(both()) > 3  # the loop ran the ticker while the model "thought"
