"""Servers that never finish or send too much: every call ends at its time limit or size cap.

A keep-alive drip (one space every 0.5 s, forever) must fail at ``request_timeout`` for a
streamed chat reply, a whole JSON reply and both embedding endpoints; a 50 MB reply is refused
(and never reaches the caller); an embedding server that stops answering makes the embedder fail
fast after a few requests instead of costing the full timeout per file.
"""

from __future__ import annotations

import pytest
from support.hostile_http import HostileServer
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.embeddings.ollama import OllamaEmbedder
from ragcore.embeddings.openai import OpenAIEmbedder
from ragcore.embeddings.stall import EmbeddingServerStalled
from ragcore.errors import EmbeddingError, LLMResponseError, LLMTimeoutError
from ragcore.llms import complete
from ragcore.llms.ollama import OllamaLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.types import Message

HI = [Message("user", "Hi?")]
LIMIT = 2.0  # request_timeout of these tests, seconds
MAX_DRIPS = 12  # 0.5 s apart: a client that stopped at the limit saw about 4 of them


def embedder(kind: str, url: str, **options):
    if kind == "ollama":
        return OllamaEmbedder(model="nomic-embed-text", base_url=url, **options)
    return OpenAIEmbedder(model="text-embedding-3-small", base_url=url + "/v1", api_key="k",
                          **options)


@pytest.mark.parametrize("backend", ["ollama", "openai"])
def test_a_keep_alive_drip_on_a_streamed_reply_ends_at_the_time_limit(backend):
    with HostileServer("drip") as server:
        if backend == "ollama":
            llm = OllamaLLM(model="llama3.1", base_url=server.url, request_timeout=LIMIT)
        else:
            llm = OpenAILLM(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="k",
                            request_timeout=LIMIT)
        with pytest.raises(LLMTimeoutError, match=r"time limit of 2 s for one request ran out"):
            complete(llm, HI)
        assert 0 < server.sent <= MAX_DRIPS


def test_a_keep_alive_drip_on_a_json_reply_ends_at_the_time_limit():
    with HostileServer("drip-json") as server:
        llm = OpenAILLM(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="k",
                        request_timeout=LIMIT)
        with pytest.raises(LLMTimeoutError, match="time limit of 2 s"):
            llm.chat_with_tools(HI, [])
        assert 0 < server.sent <= MAX_DRIPS


@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_a_keep_alive_drip_on_an_embedding_reply_ends_at_the_time_limit(kind):
    with HostileServer("drip-json") as server:
        with pytest.raises(EmbeddingError, match="time limit of 2 s") as caught:
            embedder(kind, server.url, request_timeout=LIMIT).embed_batch(["a", "b"])
        assert "embedding server" in str(caught.value)
        assert 0 < server.sent <= MAX_DRIPS


@pytest.mark.parametrize("mode", ["big", "big-chunked"])
@pytest.mark.parametrize("kind", ["ollama", "openai"])
def test_a_50_mb_embedding_reply_is_refused(kind, mode):
    with HostileServer(mode) as server:
        with pytest.raises(EmbeddingError, match=r"longer than [\d,]+ bytes.*kept none of it"):
            embedder(kind, server.url).embed_batch(["a", "b", "c"])


@pytest.mark.parametrize("mode", ["big", "big-chunked"])
def test_a_50_mb_chat_completion_is_refused_and_returns_nothing(mode):
    with HostileServer(mode) as server:
        llm = OpenAILLM(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="k")
        with pytest.raises(LLMResponseError, match=r"longer than 16,777,216 bytes"):
            llm.chat_with_tools(HI, [])


def test_a_50_mb_streamed_line_is_refused_before_it_is_buffered():
    with HostileServer("big-chunked") as server:
        llm = OllamaLLM(model="llama3.1", base_url=server.url)
        with pytest.raises(LLMResponseError, match=r"sent a line longer than"):
            complete(llm, HI)
        assert server.sent < 50_000_000  # it stopped reading part way


def test_the_embedding_reply_cap_grows_with_the_batch(loopback):
    big = [[0.5] * 4096 for _ in range(64)]  # 64 vectors of 4,096 numbers: about 1.3 MB of JSON
    loopback.queue(Reply(embeddings=big))
    vectors = embedder("ollama", loopback.ollama_url, batch_size=64).embed_batch(["t"] * 64)
    assert vectors.shape == (64, 4096)


# -- a stalled embedding server ------------------------------------------------------------


def stalled_embedder(url: str, **options):
    return embedder("ollama", url, timeout=0.3, request_timeout=1.0, max_retries=0, **options)


def test_an_embedder_stops_sending_after_three_stalled_requests_in_a_row():
    with HostileServer("stall", limit=10) as server:
        model = stalled_embedder(server.url)
        errors = []
        for file_number in range(8):
            with pytest.raises(EmbeddingError) as caught:
                model.embed_batch([f"text of file {file_number}"])
            errors.append(caught.value)
        assert server.posts == 3  # not 8: the last five files cost no request (and no timeout)
        assert not any(isinstance(e, EmbeddingServerStalled) for e in errors[:3])
        assert all(isinstance(e, EmbeddingServerStalled) for e in errors[3:])
        last = str(errors[-1])
        assert server.url in last and "stopped answering" in last
        assert "5 requests refused" in last and "run the ingest again" in last


def test_the_stall_guard_lets_a_probe_through_after_its_cooldown(loopback):
    with HostileServer("stall", limit=10) as server:
        model = stalled_embedder(server.url, stall_limit=2)
        for _ in range(3):
            with pytest.raises(EmbeddingError):
                model.embed_batch(["x"])
        assert server.posts == 2
        model.stall.cooldown = 0.0  # the cooldown has passed: the next call probes the server
        with pytest.raises(EmbeddingError):
            model.embed_batch(["x"])
        assert server.posts == 3
    # the server is back (another address, same guard): a successful probe resets everything
    model.connection.base_url = loopback.ollama_url
    assert model.embed_batch(["x"]).shape[0] == 1
    assert model.stall.failures == 0 and not model.stall.tripped


def test_an_answer_between_failures_resets_the_count(loopback):
    model = stalled_embedder(loopback.ollama_url, stall_limit=2)
    loopback.queue(Reply(delay=1.0), Reply(), Reply(delay=1.0), Reply())
    for expect_ok in (False, True, False, True):
        if expect_ok:
            model.embed_batch(["x"])
        else:
            with pytest.raises(EmbeddingError, match="did not answer|time limit"):
                model.embed_batch(["x"])
    assert not model.stall.tripped


def test_an_ingest_behind_a_stalled_server_fails_fast_file_after_file(tmp_path):
    from ragcore.workspace import Workspace

    files = []
    for number in range(6):
        path = tmp_path / f"note{number}.txt"
        path.write_text(f"Note number {number} about tomatoes and peppers.\n")
        files.append(path)
    with HostileServer("stall", limit=10) as server:
        workspace = Workspace(tmp_path / "ws", embedder=stalled_embedder(server.url))
        report = workspace.ingest("notes", files)
        assert [f.status for f in report.files] == ["failed"] * 6
        assert server.posts == 3
        assert all("stopped answering" in f.reason for f in report.files[3:])


def test_a_50_mb_reply_never_reaches_the_chat_memory():
    from ragcore.agent.function_calling import FunctionCallingAgent
    from ragcore.memory import ChatMemory
    from ragcore.tools import FunctionTool

    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    with HostileServer("big") as server:
        llm = OpenAILLM(model="gpt-4o-mini", base_url=server.url + "/v1", api_key="k")
        agent = FunctionCallingAgent([FunctionTool.from_defaults(add)], llm=llm)
        memory = ChatMemory()
        with pytest.raises(LLMResponseError, match="kept none of it"):
            str(agent.chat("What is 2 + 3?", memory))  # the response is read lazily
        assert all(len(m.content or "") < 1000 for m in memory.messages)
        assert [m.role for m in memory.messages] in ([], ["user"])
