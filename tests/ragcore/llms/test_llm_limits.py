"""Every request to a model server carries a reply cap and runs under an overall time limit.

Against the real loopback server (``tests/support/loopback.py``): the cap (``num_output``) goes out as
Ollama's ``options.num_predict`` and OpenAI's ``max_tokens`` on every chat, stream and tool
request, whichever engine makes it; a server that keeps streaming (or trickling, or says nothing)
past ``request_timeout`` is cut off within a small margin with an ``LLMTimeoutError`` that says
which server, how long and what to do, and the text that did arrive stays with the caller;
replies that finish in time are untouched.
"""

from __future__ import annotations

import time

import pytest
from support.loopback import LoopbackServer, Reply, loopback  # noqa: F401 (fixture)

from ragcore import VectorStoreIndex
from ragcore.chat import SimpleChatEngine
from ragcore.errors import ConfigError, LLMStatusError, LLMTimeoutError
from ragcore.llms import complete
from ragcore.llms.ollama import OllamaLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.llms.registry import build_llm
from ragcore.memory import ChatMemory
from ragcore.types import Document, Message

ASK = [Message("system", "Be brief."), Message("user", "Tell me about owls.")]
TOOL = {"type": "function", "function": {"name": "search", "description": "Search.",
                                         "parameters": {"type": "object", "properties": {}}}}
CAP = 77
LIMIT = 0.3  # seconds: the overall time limit the cut-off tests run under
MARGIN = 0.4  # how far past the limit a cut-off may land on a busy 2-core machine
CHAT_PATHS = ("/api/chat", "/v1/chat/completions")


def ollama(server: LoopbackServer, **options) -> OllamaLLM:
    options.setdefault("retry_backoff", 0.0)
    return OllamaLLM(model="llama3.1", base_url=server.ollama_url, **options)


def openai(server: LoopbackServer, **options) -> OpenAILLM:
    options.setdefault("retry_backoff", 0.0)
    return OpenAILLM(model="gpt-4o-mini", base_url=server.openai_url, api_key="k", **options)


BACKENDS = {"ollama": ollama, "openai": openai}


def cap_sent(request) -> int | None:
    """The reply cap a chat request carried, in either wire format."""
    if request.path == "/api/chat":
        return (request.json.get("options") or {}).get("num_predict")
    return request.json.get("max_tokens")


def read_until_error(chunks) -> tuple[list[str], BaseException, float]:
    """Read ``chunks`` until they raise: what arrived, the error, and the seconds it took."""
    received: list[str] = []
    start = time.monotonic()
    with pytest.raises(LLMTimeoutError) as info:
        for chunk in chunks:
            received.append(chunk)
    return received, info.value, time.monotonic() - start


# --- the reply cap -------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_streamed_reply_asks_for_at_most_num_output_tokens(loopback, backend):
    complete(BACKENDS[backend](loopback, num_output=CAP), ASK)
    complete(BACKENDS[backend](loopback), ASK)
    first, second = [r for r in loopback.requests if r.path in CHAT_PATHS]
    assert cap_sent(first) == CAP
    assert cap_sent(second) == 512  # the default reserve is the default cap


def test_a_tool_request_asks_for_at_most_num_output_tokens(loopback):
    loopback.queue(Reply(tool_calls=[("search", {})]))
    openai(loopback, num_output=CAP).chat_with_tools(ASK, [TOOL])
    request = loopback.requests_to("/v1/chat/completions")[-1]
    assert request.json["stream"] is False and request.json["max_tokens"] == CAP


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["simple", "condense_question", "context",
                                  "condense_plus_context", "react", "best"])
def test_every_request_of_every_chat_mode_carries_the_cap(loopback, fake_embedder, backend,
                                                          mode):
    docs = [Document("Owls hunt at night. They have silent feathers.", doc_id="owls"),
            Document("Bees make honey and dance to show the way.", doc_id="bees")]
    index = VectorStoreIndex.from_documents(docs, embedder=fake_embedder)
    engine = index.as_chat_engine(chat_mode=mode, llm=BACKENDS[backend](loopback,
                                                                        num_output=CAP))
    memory = ChatMemory()
    for message in ("How do owls hunt?", "And what about their feathers?"):
        _ = engine.chat(message, memory).text
    sent = [r for r in loopback.requests if r.path in CHAT_PATHS]
    assert sent and [cap_sent(r) for r in sent] == [CAP] * len(sent)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_settings_page_fields_reach_the_wire(loopback, backend):
    url = loopback.ollama_url if backend == "ollama" else loopback.openai_url
    model = "llama3.1" if backend == "ollama" else "gpt-4o-mini"
    llm = build_llm(backend, {"url": url, "model": model, "num_output": 64,
                              "request_timeout": 42})
    assert llm.num_output == 64 and llm.connection.request_timeout == 42.0
    complete(llm, ASK)
    assert cap_sent([r for r in loopback.requests if r.path in CHAT_PATHS][-1]) == 64


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("options, problem", [
    ({"num_output": 0}, "num_output"),
    ({"num_output": 9000, "context_window": 8192}, "num_output"),
    ({"request_timeout": 0}, "request_timeout"),
    ({"request_timeout": -5}, "request_timeout"),
    ({"request_timeout": float("nan")}, "request_timeout"),
    ({"request_timeout": float("inf")}, "request_timeout"),
    ({"request_timeout": "60"}, "request_timeout"),
])
def test_bad_limits_are_refused_where_the_backend_is_built(loopback, backend, options, problem):
    with pytest.raises(ConfigError, match=problem):
        BACKENDS[backend](loopback, **options)


def test_a_settings_value_out_of_range_is_refused_naming_the_field():
    with pytest.raises(ConfigError, match="request_timeout"):
        build_llm("ollama", {"model": "llama3.1", "request_timeout": 0})
    with pytest.raises(ConfigError, match="num_output"):
        build_llm("openai", {"url": "http://127.0.0.1:1/v1", "model": "m", "num_output": 0})


# --- the overall time limit ----------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_server_that_keeps_streaming_is_cut_off_at_the_limit(loopback, backend):
    loopback.queue(Reply(chunks=["tok "], chunk_delay=0.02, stream_for=5.0))
    llm = BACKENDS[backend](loopback, request_timeout=LIMIT, num_output=CAP)
    received, error, seconds = read_until_error(llm.stream(ASK))
    assert LIMIT <= seconds < LIMIT + MARGIN
    assert received and set(received) == {"tok "}  # what arrived was handed on
    assert error.seconds == LIMIT and error.received == len("".join(received))
    message = str(error)
    assert llm.base_url in message and llm.model_name in message and f"{LIMIT:g} s" in message
    assert "request_timeout" in message and f"num_output, now {CAP} tokens" in message
    assert "smaller" in message
    request = [r for r in loopback.requests if r.path in CHAT_PATHS][-1]
    assert request.done.wait(2) and request.client_closed  # the response was closed, not drained


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_server_silent_past_the_limit_is_cut_off_too(loopback, backend):
    # The per-read timeout is far longer; the whole-request limit still applies to each wait.
    loopback.queue(Reply(chunks=["First", " words", " then silence"], chunk_delay=5.0))
    llm = BACKENDS[backend](loopback, timeout=30.0, request_timeout=LIMIT)
    received, error, seconds = read_until_error(llm.stream(ASK))
    # The loopback's OpenAI stream opens with a role-only event, then waits before "First".
    assert received == (["First"] if backend == "ollama" else [])
    assert LIMIT <= seconds < LIMIT + MARGIN
    assert f"time limit of {LIMIT:g} s" in str(error)


def test_a_tool_request_that_outlasts_the_limit_is_cut_off(loopback):
    loopback.queue(Reply(tool_calls=[("search", {})], delay=5.0))
    llm = openai(loopback, timeout=30.0, request_timeout=LIMIT)
    start = time.monotonic()
    with pytest.raises(LLMTimeoutError, match=f"time limit of {LIMIT:g} s"):
        llm.chat_with_tools(ASK, [TOOL])
    assert time.monotonic() - start < LIMIT + MARGIN


def test_a_whole_reply_that_trickles_in_is_cut_off(loopback):
    # Never silent long enough for a read timeout, but slower in total than the limit.
    loopback.queue(Reply(tool_calls=[("search", {"query": "owls at night"})], chunk_delay=0.05))
    llm = openai(loopback, timeout=30.0, request_timeout=LIMIT)
    start = time.monotonic()
    with pytest.raises(LLMTimeoutError, match="had not finished its reply"):
        llm.chat_with_tools(ASK, [TOOL])
    assert LIMIT <= time.monotonic() - start < LIMIT + MARGIN
    request = loopback.requests_to("/v1/chat/completions")[-1]
    assert request.done.wait(2) and request.client_closed


def test_what_a_chat_answer_streamed_before_the_limit_stays_readable(loopback):
    loopback.queue(Reply(chunks=["Owls ", "hunt "], chunk_delay=0.05, stream_for=5.0))
    memory = ChatMemory()
    response = SimpleChatEngine(ollama(loopback, request_timeout=LIMIT)).chat("Owls?", memory)
    received, error, _ = read_until_error(response)
    assert "".join(received).startswith("Owls hunt ")
    replayed, again, _ = read_until_error(response)  # reading again replays, then fails again
    assert replayed == received and again is error
    assert [m.role for m in memory.messages] == ["user"]  # no half answer remembered


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reply_that_finishes_in_time_is_untouched(loopback, backend):
    loopback.queue(Reply(chunks=["Owls", " hunt", " at", " night."], chunk_delay=0.05))
    llm = BACKENDS[backend](loopback, request_timeout=2.0)
    assert list(llm.stream(ASK)) == ["Owls", " hunt", " at", " night."]
    loopback.queue(Reply(tool_calls=[("search", {})], chunk_delay=0.002))
    assert openai(loopback, request_timeout=2.0).chat_with_tools(ASK, [TOOL]).tool_calls


def test_retries_stop_when_the_limit_leaves_no_time_for_them(loopback):
    loopback.queue(*[Reply(status=503, error="busy")] * 6)
    # Waits of 0.05, 0.1, 0.2, 0.4 and 0.8 s: the limit leaves time for the first two or so.
    llm = ollama(loopback, max_retries=5, retry_backoff=0.05, request_timeout=LIMIT)
    start = time.monotonic()
    with pytest.raises(LLMStatusError, match="busy"):
        complete(llm, ASK)
    assert time.monotonic() - start < LIMIT + MARGIN
    assert 1 < len(loopback.requests_to("/api/chat")) < 6
