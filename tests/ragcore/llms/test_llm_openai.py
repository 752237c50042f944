"""The OpenAI-compatible backend against a real loopback server speaking OpenAI's wire format."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.loopback import LoopbackServer, Reply, loopback, unused_url  # noqa: F401 (fixture)

from ragcore.errors import (
    ConfigError,
    LLMConnectionError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
)
from ragcore.llms import ToolCallingLLM, complete
from ragcore.http.client import ServerStreamError, StreamFormatError, StreamIncomplete
from ragcore.llms.openai import (
    OpenAILLM,
    decode_openai_stream,
    iter_sse_data,
    list_openai_models,
    openai_chat_body,
    openai_message,
    parse_tool_reply,
)
from ragcore.types import Message, ToolCall

ASK = [Message("system", "Be brief."), Message("user", "What is the capital of France?")]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}


def make_llm(server: LoopbackServer, **options) -> OpenAILLM:
    options.setdefault("retry_backoff", 0.0)
    options.setdefault("timeout", 5.0)
    return OpenAILLM(model=options.pop("model", "gpt-4o-mini"), base_url=server.openai_url,
                     **options)


def sse(*payloads: str) -> list[str]:
    """The lines httpx's iter_lines yields for these event payloads."""
    lines: list[str] = []
    for payload in payloads:
        lines += [f"data: {payload}", ""]
    return lines


def chunk(content: str | None, finish: str | None = None) -> str:
    delta = {} if content is None else {"content": content}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [
        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]})


# --- pure parts ----------------------------------------------------------------------------

def test_messages_serialize_to_the_exact_openai_shapes():
    call = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
    assert openai_message(Message("user", "hi")) == {"role": "user", "content": "hi"}
    assert openai_message(Message("assistant", "", tool_calls=[call])) == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}],
    }
    tool_result = Message("tool", "18 C, sunny", tool_call_id="call_1", name="get_weather")
    assert openai_message(tool_result) == {"role": "tool", "tool_call_id": "call_1",
                                           "content": "18 C, sunny"}


def test_body_streams_by_default_and_adds_temperature_tools_and_the_reply_cap():
    body = openai_chat_body("gpt-4o-mini", ASK, temperature=0.0, max_tokens=300)
    assert body["stream"] is True and body["temperature"] == 0.0 and "tools" not in body
    assert body["max_tokens"] == 300
    body = openai_chat_body("m", ASK, stream=False, tools=[WEATHER_TOOL])
    assert body["stream"] is False and body["tools"] == [WEATHER_TOOL]
    assert "temperature" not in body and "max_tokens" not in body
    with pytest.raises(ConfigError, match="max_tokens"):
        openai_chat_body("m", ASK, max_tokens=0)


def test_sse_events_join_data_lines_and_skip_comments_and_other_fields():
    lines = [": keep-alive", "", "event: message", "id: 7", "retry: 1000",
             "data: first line", "data:second line", "", "data: last"]
    assert list(iter_sse_data(lines)) == ["first line\nsecond line", "last"]


def test_sse_rejects_a_line_that_is_not_an_event_field():
    with pytest.raises(StreamFormatError) as info:
        list(iter_sse_data(["<html>Bad gateway</html>"]))
    assert info.value.line == "<html>Bad gateway</html>"


def test_decoder_yields_deltas_until_done():
    lines = sse(json.dumps({"choices": [{"index": 0, "delta": {"role": "assistant",
                                                               "content": ""}}]}),
                chunk("Par"), chunk("is"), chunk(None, "stop"), "[DONE]")
    lines += ["data: never read"]
    assert list(decode_openai_stream(lines)) == ["Par", "is"]


def test_decoder_accepts_a_multi_line_json_event_and_usage_chunks():
    payload = '{"choices": [{"index": 0,\n"delta": {"content": "Hi"}, "finish_reason": "stop"}]}'
    lines = ["data: " + line for line in payload.split("\n")] + [""]
    lines += sse(json.dumps({"choices": [], "usage": {"total_tokens": 3}}), "[DONE]")
    assert list(decode_openai_stream(lines)) == ["Hi"]


def test_decoder_accepts_a_finished_stream_without_done():
    assert list(decode_openai_stream(sse(chunk("Hi", "stop")))) == ["Hi"]


def test_decoder_errors():
    with pytest.raises(StreamIncomplete):
        list(decode_openai_stream(sse(chunk("Hi"))))
    with pytest.raises(StreamFormatError):
        list(decode_openai_stream(sse('{"choices": [')))
    with pytest.raises(ServerStreamError, match="overloaded"):
        list(decode_openai_stream(sse('{"error": {"message": "overloaded"}}')))


@settings(deadline=None)
@given(st.lists(st.text(min_size=1), max_size=8))
def test_decoder_round_trips_any_text(pieces):
    lines = sse(*[chunk(p) for p in pieces], chunk(None, "stop"), "[DONE]")
    assert "".join(decode_openai_stream(lines)) == "".join(pieces)


@settings(deadline=None)
@given(st.lists(st.text(), max_size=6))
def test_decoder_only_raises_its_own_errors(lines):
    try:
        list(decode_openai_stream(lines))
    except (StreamFormatError, StreamIncomplete, ServerStreamError):
        pass


def test_tool_reply_parsing_accepts_object_arguments_and_missing_ids():
    data = {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": {"x": 1}}}]}}]}
    reply = parse_tool_reply(data)
    assert reply.tool_calls == [ToolCall("call_0", "f", '{"x": 1}')]
    assert reply.content == ""
    with pytest.raises(LLMResponseError):
        parse_tool_reply({"choices": []})


def test_openai_proper_needs_an_api_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        OpenAILLM(model="gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    assert OpenAILLM(model="gpt-4o-mini").connection.headers == {
        "Authorization": "Bearer sk-from-env"}


# --- against the loopback server -----------------------------------------------------------

def test_streams_text_and_implements_tool_calling(loopback):
    loopback.queue(Reply(chunks=["Paris", " is", " the capital."], sse_comments=True))
    llm = make_llm(loopback)
    assert isinstance(llm, ToolCallingLLM)
    assert list(llm.stream(ASK)) == ["Paris", " is", " the capital."]


def test_sends_model_messages_temperature_and_api_key(loopback):
    loopback.api_key = "sk-test"
    complete(make_llm(loopback, api_key="sk-test", temperature=0.3), ASK)
    request = loopback.requests_to("/v1/chat/completions")[-1]
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.json["model"] == "gpt-4o-mini"
    assert request.json["temperature"] == 0.3
    assert request.json["stream"] is True and request.json["max_tokens"] == 512
    assert request.json["messages"][0] == {"role": "system", "content": "Be brief."}


def test_wrong_api_key_is_a_401_that_says_what_to_fix(loopback):
    loopback.api_key = "sk-right"
    with pytest.raises(LLMStatusError) as info:
        complete(make_llm(loopback, api_key="sk-wrong"), ASK)
    assert info.value.status_code == 401
    assert "Incorrect API key" in str(info.value) and "OPENAI_API_KEY" in str(info.value)
    assert len(loopback.requests_to("/v1/chat/completions")) == 1


def test_unknown_model_lists_the_servers_models(loopback):
    with pytest.raises(LLMStatusError) as info:
        complete(make_llm(loopback, model="gpt-9"), ASK)
    message = str(info.value)
    assert info.value.status_code == 404
    assert "gpt-9" in message and loopback.openai_url in message
    assert "gpt-4o-mini" in message  # from GET /v1/models


def test_refused_connection_names_the_url():
    url = unused_url() + "/v1"
    llm = OpenAILLM(model="m", base_url=url, retry_backoff=0.0, max_retries=0)
    with pytest.raises(LLMConnectionError) as info:
        complete(llm, ASK)
    assert url in str(info.value) and "server is running" in str(info.value)


def test_timeout(loopback):
    loopback.queue(Reply(delay=5.0))
    with pytest.raises(LLMTimeoutError, match="did not answer within 0.2 s"):
        complete(make_llm(loopback, timeout=0.2), ASK)


def test_5xx_retried_then_success_and_4xx_not(loopback):
    loopback.queue(Reply(status=502), Reply(text="ok"))
    assert complete(make_llm(loopback), ASK) == "ok"
    loopback.queue(Reply(status=429, error="Rate limit reached"))
    with pytest.raises(LLMStatusError, match="Rate limit reached"):
        complete(make_llm(loopback), ASK)
    assert len(loopback.requests_to("/v1/chat/completions")) == 3


def test_reset_mid_stream(loopback):
    loopback.queue(Reply(chunks=["a" * 10, "b" * 10, "c"], reset_after=2))
    with pytest.raises(LLMConnectionError, match="cut off after 20 characters"):
        complete(make_llm(loopback), ASK)


def test_malformed_event_is_quoted(loopback):
    loopback.queue(Reply(text="Hi", malformed="data: {not json"))
    with pytest.raises(LLMResponseError, match=r"\{not json"):
        complete(make_llm(loopback), ASK)


def test_chat_with_tools_returns_every_tool_call(loopback):
    loopback.queue(Reply(tool_calls=[("get_weather", {"city": "Paris"}),
                                     ("get_weather", {"city": "Oslo"})]))
    reply = make_llm(loopback).chat_with_tools(ASK, [WEATHER_TOOL])
    assert reply.role == "assistant" and reply.content == ""
    assert reply.tool_calls == [ToolCall("call_1", "get_weather", '{"city": "Paris"}'),
                                ToolCall("call_2", "get_weather", '{"city": "Oslo"}')]
    request = loopback.requests_to("/v1/chat/completions")[-1]
    assert request.json["stream"] is False and request.json["tools"] == [WEATHER_TOOL]


def test_tool_results_go_back_in_openai_shape_and_text_answers_come_back(loopback):
    loopback.queue(Reply(text="It is sunny in Paris."))
    call = ToolCall("call_1", "get_weather", '{"city": "Paris"}')
    history = [*ASK, Message("assistant", "", tool_calls=[call]),
               Message("tool", "sunny", tool_call_id="call_1", name="get_weather")]
    reply = make_llm(loopback).chat_with_tools(history, [WEATHER_TOOL])
    assert reply.content == "It is sunny in Paris." and reply.tool_calls == []
    sent = loopback.requests_to("/v1/chat/completions")[-1].json["messages"]
    assert sent[2]["tool_calls"][0]["function"]["name"] == "get_weather"
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}


def test_chat_with_tools_rejects_tools_not_in_openai_format(loopback):
    with pytest.raises(ConfigError, match="to_openai_tool"):
        make_llm(loopback).chat_with_tools(ASK, [{"name": "get_weather"}])


def test_list_models(loopback):
    loopback.api_key = "k"
    assert list_openai_models(loopback.openai_url, "k") == list(loopback.models)
    with pytest.raises(LLMStatusError):
        list_openai_models(loopback.openai_url, "wrong")
