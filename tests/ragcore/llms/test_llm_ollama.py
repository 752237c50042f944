"""The Ollama backend against a real loopback server speaking Ollama's wire format."""

from __future__ import annotations

import json
import logging

import httpx
import pytest
from support.loopback import LoopbackServer, Reply, loopback, unused_url  # noqa: F401 (fixture)

from ragcore.errors import (
    ConfigError,
    LLMConnectionError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
)
from ragcore.llms import LLM, complete, complete_traced
from ragcore.http.client import StreamFormatError, StreamIncomplete, ServerStreamError
from ragcore.llms.ollama import (
    OllamaLLM,
    decode_ollama_stream,
    list_ollama_models,
    ollama_chat_body,
)
from ragcore.trace import Trace
from ragcore.types import Message

ASK = [Message("system", "Be brief."), Message("user", "What is the capital of France?")]


def make_llm(server: LoopbackServer, **options) -> OllamaLLM:
    options.setdefault("retry_backoff", 0.0)
    options.setdefault("timeout", 5.0)
    return OllamaLLM(model=options.pop("model", "llama3.1"), base_url=server.ollama_url,
                     **options)


# --- pure parts ----------------------------------------------------------------------------

def test_body_carries_model_messages_stream_and_options():
    body = ollama_chat_body("llama3.1", ASK, temperature=0.2, num_ctx=4096, num_predict=300)
    assert body == {
        "model": "llama3.1",
        "messages": [{"role": "system", "content": "Be brief."},
                     {"role": "user", "content": "What is the capital of France?"}],
        "stream": True,
        "options": {"temperature": 0.2, "num_ctx": 4096, "num_predict": 300},
    }
    assert "options" not in ollama_chat_body("m", ASK)
    with pytest.raises(ConfigError, match="num_predict"):
        ollama_chat_body("m", ASK, num_predict=0)


def test_decoder_joins_message_contents_until_done():
    lines = [
        '{"model":"m","created_at":"2024-08-07T03:57:33Z","message":{"role":"assistant",'
        '"content":"Par"},"done":false}',
        "",
        '{"model":"m","message":{"role":"assistant","content":"is"},"done":false}',
        '{"model":"m","message":{"role":"assistant","content":""},"done_reason":"stop",'
        '"done":true,"eval_count":2}',
        "this line after done is never read",
    ]
    assert list(decode_ollama_stream(lines)) == ["Par", "is"]


@pytest.mark.parametrize(
    "line, error",
    [
        ('{"model": "m", "message": {"content": "Hi"', StreamFormatError),
        ("[1, 2]", StreamFormatError),
        ('{"model": "m", "done": false}', StreamFormatError),
        ('{"error": "model runner has unexpectedly stopped"}', ServerStreamError),
    ],
)
def test_decoder_rejects_bad_lines(line, error):
    with pytest.raises(error) as info:
        list(decode_ollama_stream([line]))
    if error is StreamFormatError:
        assert info.value.line == line


def test_decoder_notices_a_stream_without_done():
    lines = ['{"message":{"role":"assistant","content":"Hi"},"done":false}']
    with pytest.raises(StreamIncomplete):
        list(decode_ollama_stream(lines))


@pytest.mark.parametrize(
    "options, problem",
    [
        ({"model": ""}, "model"),
        ({"temperature": 3}, "temperature"),
        ({"num_ctx": 0}, "num_ctx"),
        ({"num_output": 9000}, "num_output"),
        ({"num_output": 0}, "num_output"),
        ({"request_timeout": 0}, "request_timeout"),
        ({"base_url": "localhost:11434"}, "base_url"),
        ({"timeout": -1}, "timeout"),
        ({"max_retries": -1}, "max_retries"),
    ],
)
def test_bad_options_fail_early_naming_the_option(options, problem):
    options = {"model": "llama3.1", **options}
    with pytest.raises(ConfigError, match=problem):
        OllamaLLM(**options)


def test_satisfies_the_llm_protocol_and_defaults_the_window():
    llm = OllamaLLM(model="llama3.1")
    assert isinstance(llm, LLM)
    assert llm.model == "ollama:llama3.1"
    assert (llm.context_window, llm.num_ctx, llm.num_output) == (8192, 8192, 512)
    assert llm.connection.request_timeout == 600.0
    assert OllamaLLM(model="m", num_ctx=2048).context_window == 2048


# --- against the loopback server -----------------------------------------------------------

def test_streams_text_chunk_by_chunk(loopback):
    loopback.queue(Reply(chunks=["Paris", " is", " the capital."]))
    chunks = list(make_llm(loopback).stream(ASK))
    assert chunks == ["Paris", " is", " the capital."]


def test_sends_model_messages_and_options(loopback):
    llm = make_llm(loopback, temperature=0.1, num_ctx=4096)
    complete(llm, ASK)
    request = loopback.requests_to("/api/chat")[-1]
    assert request.json["model"] == "llama3.1"
    assert request.json["stream"] is True
    assert request.json["options"] == {"temperature": 0.1, "num_ctx": 4096, "num_predict": 512}
    assert request.json["messages"][1] == {"role": "user",
                                           "content": "What is the capital of France?"}


def test_trace_records_the_call(loopback):
    trace = Trace()
    reply = complete_traced(make_llm(loopback), ASK, trace, "qa")
    assert reply == "Echo: What is the capital of France?"
    assert trace.llm_calls[0].model == "ollama:llama3.1"
    assert trace.llm_calls[0].reply == reply


def test_missing_model_lists_the_servers_models_and_says_pull(loopback):
    llm = make_llm(loopback, model="mistral")
    with pytest.raises(LLMStatusError) as info:
        complete(llm, ASK)
    message = str(info.value)
    assert info.value.status_code == 404
    assert loopback.ollama_url in message and "mistral" in message
    assert "llama3.1:latest" in message
    assert "ollama pull mistral" in message
    assert len(loopback.requests_to("/api/chat")) == 1  # 4xx: no retry


def test_refused_connection_names_the_url_and_says_start_ollama():
    url = unused_url()
    llm = OllamaLLM(model="llama3.1", base_url=url, retry_backoff=0.0, max_retries=1)
    with pytest.raises(LLMConnectionError) as info:
        complete(llm, ASK)
    assert url in str(info.value)
    assert "llama3.1" in str(info.value)
    assert "ollama serve" in str(info.value)


def test_slow_server_times_out_with_advice(loopback):
    loopback.queue(Reply(delay=5.0))
    llm = make_llm(loopback, timeout=0.2)
    with pytest.raises(LLMTimeoutError) as info:
        complete(llm, ASK)
    assert "did not answer within 0.2 s" in str(info.value) and info.value.seconds == 0.2
    assert "raise the timeout" in str(info.value)
    assert len(loopback.requests_to("/api/chat")) == 1  # a slow model is not retried


def test_5xx_is_retried_then_succeeds(loopback, caplog):
    loopback.queue(Reply(status=503, error="busy"), Reply(status=500), Reply(text="Paris."))
    with caplog.at_level(logging.WARNING, logger="ragcore.http.client"):
        assert complete(make_llm(loopback), ASK) == "Paris."
    assert len(loopback.requests_to("/api/chat")) == 3
    assert "retry 2/2" in caplog.text


def test_5xx_gives_up_after_max_retries(loopback):
    loopback.queue(*[Reply(status=500, error="CUDA out of memory")] * 3)
    with pytest.raises(LLMStatusError) as info:
        complete(make_llm(loopback, max_retries=1), ASK)
    assert info.value.status_code == 500
    assert "CUDA out of memory" in str(info.value)
    assert len(loopback.requests_to("/api/chat")) == 2


def test_4xx_is_not_retried(loopback):
    loopback.queue(Reply(status=400, error='invalid option "num_ctx"'))
    with pytest.raises(LLMStatusError) as info:
        complete(make_llm(loopback), ASK)
    assert info.value.status_code == 400
    assert 'invalid option "num_ctx"' in str(info.value)
    assert len(loopback.requests_to("/api/chat")) == 1


def test_reset_mid_stream_says_how_much_arrived(loopback):
    loopback.queue(Reply(chunks=["Paris", " is", " the", " capital"], reset_after=2))
    received = []
    with pytest.raises(LLMConnectionError) as info:
        for chunk in make_llm(loopback).stream(ASK):
            received.append(chunk)
    assert received == ["Paris", " is"]
    assert "cut off after 8 characters" in str(info.value)
    assert len(loopback.requests_to("/api/chat")) == 1  # never retried once text was yielded


def test_malformed_line_is_quoted(loopback):
    loopback.queue(Reply(text="Hi", malformed='{"model": "llama3.1", "mess'))
    with pytest.raises(LLMResponseError) as info:
        complete(make_llm(loopback), ASK)
    assert '{"model": "llama3.1", "mess' in str(info.value)
    assert loopback.ollama_url in str(info.value)


def test_very_long_malformed_line_is_truncated_in_the_message(loopback):
    loopback.queue(Reply(text="Hi", malformed="x" * 5000))
    with pytest.raises(LLMResponseError) as info:
        complete(make_llm(loopback), ASK)
    assert "xxx..." in str(info.value) and len(str(info.value)) < 800


def test_an_injected_client_is_used(loopback):
    seen = []
    client = httpx.Client(event_hooks={"request": [seen.append]})
    complete(make_llm(loopback, client=client), ASK)
    assert [r.url.path for r in seen] == ["/api/chat"]


def test_list_models(loopback):
    assert list_ollama_models(loopback.ollama_url) == list(loopback.models)


def test_list_models_of_an_absent_server_raises_connection_error():
    with pytest.raises(LLMConnectionError):
        list_ollama_models(unused_url(), timeout=0.5)


def test_non_stream_reply_shape_is_what_the_server_sends(loopback):
    # The loopback server's own format check: a stream:false reply is one JSON object.
    response = httpx.post(loopback.ollama_url + "/api/chat", json={
        "model": "llama3.1", "messages": [{"role": "user", "content": "hi"}], "stream": False})
    data = response.json()
    assert data["done"] is True and data["message"] == {"role": "assistant", "content": "Echo: hi"}
    assert {"eval_count", "prompt_eval_count", "total_duration"} <= data.keys()
    assert json.loads(json.dumps(data)) == data
