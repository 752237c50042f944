"""The OpenAI-compatible backend: ``POST {base_url}/chat/completions``, streamed as SSE.

Works with OpenAI and with servers that copy its API (vLLM, llama.cpp's server, LM Studio,
Ollama's /v1). The reply is a stream of SSE events, ``data: {"choices": [{"delta": {"content":
"..."}}]}``, ending with ``data: [DONE]``; comment lines (``: keep-alive``) are skipped and an
event's ``data:`` lines are joined. Every request asks for at most ``num_output`` tokens
(``max_tokens``: without it llama.cpp's server writes until the context window is full) and is
cut off after ``request_timeout`` seconds. Unlike the Ollama backend it also answers with tool calls
(``chat_with_tools``, one non-streamed request), which the function-calling agent uses.
Connecting (API key, error advice) and listing models is shared with the OpenAI-compatible
embedder (``ragcore.http.servers``).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, Sequence

import httpx

from ..errors import ConfigError, LLMResponseError
from ..http.client import ServerStreamError, StreamFormatError, StreamIncomplete, decode_json_object
from ..http.options import (
    reply_char_limit,
    DEFAULT_REQUEST_TIMEOUT,
    check_model,
    check_positive,
    check_temperature,
    check_window,
)
from ..http.servers import (  # noqa: F401  (also imported from here)
    DEFAULT_OPENAI_URL,
    list_openai_models,
    openai_connection,
    openai_model_names,
)
from ..types import Message, ToolCall
from .base import DEFAULT_NUM_OUTPUT, slow_reply_hint

DEFAULT_CONTEXT_WINDOW = 8192  # safe for local servers; raise it for hosted models
DEFAULT_TIMEOUT = 120.0
_SSE_FIELDS = ("data", "event", "id", "retry")


def openai_message(message: Message) -> dict[str, Any]:
    """One message in the exact shape the chat completions API expects."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "",
                "content": message.content}
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        data["content"] = message.content or None
        data["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in message.tool_calls
        ]
    if message.name:
        data["name"] = message.name
    return data


def openai_chat_body(
    model: str,
    messages: Sequence[Message],
    *,
    temperature: float | None = None,
    stream: bool = True,
    tools: Sequence[dict[str, Any]] | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """The JSON body of a ``/chat/completions`` request (``max_tokens``: the reply cap)."""
    check_positive("max_tokens", max_tokens, optional=True)
    body: dict[str, Any] = {
        "model": model,
        "messages": [openai_message(m) for m in messages],
        "stream": stream,
    }
    if max_tokens is not None:
        body["max_tokens"] = max_tokens
    if temperature is not None:
        body["temperature"] = temperature
    if tools:
        body["tools"] = list(tools)
    return body


def iter_sse_data(lines: Iterable[str]) -> Iterator[str]:
    """Yield the data of each server-sent event (its ``data:`` lines joined by newlines)."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue  # a comment, used by servers as a keep-alive
        field, _, value = line.partition(":")
        if field not in _SSE_FIELDS:
            raise StreamFormatError("a line that is not a server-sent event field", line)
        if field == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        yield "\n".join(data)


def decode_openai_stream(lines: Iterable[str]) -> Iterator[str]:
    """Yield the text deltas of a streamed chat completion until ``[DONE]``."""
    finished = False
    for payload in iter_sse_data(lines):
        if payload.strip() == "[DONE]":
            return
        data = decode_json_object(payload, "an event whose data is")
        if "error" in data:
            error = data["error"]
            raise ServerStreamError(str(error.get("message", error) if isinstance(error, dict)
                                        else error))
        for choice in data.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            content = (choice.get("delta") or {}).get("content")
            if content:
                yield content
            finished = finished or bool(choice.get("finish_reason"))
    if not finished:
        raise StreamIncomplete("the stream ended without a finish_reason or [DONE]")


def parse_tool_reply(data: Any) -> Message:
    """The assistant ``Message`` (content and tool calls) of a non-streamed chat completion."""
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        message = None
    if not isinstance(message, dict):
        raise LLMResponseError(
            f"a chat completion without choices[0].message: {str(data)[:200]!r}"
        )
    calls = []
    for i, raw in enumerate(message.get("tool_calls") or []):
        function = raw.get("function") or {}
        arguments = function.get("arguments", "{}")
        if not isinstance(arguments, str):  # some servers send an object, not JSON text
            arguments = json.dumps(arguments)
        calls.append(ToolCall(raw.get("id") or f"call_{i}", function.get("name", ""), arguments))
    return Message("assistant", message.get("content") or "", tool_calls=calls)


class OpenAILLM:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    ``num_output`` caps every reply (sent as ``max_tokens``) and is kept free of the prompt;
    ``timeout`` bounds connecting and each wait for data, ``request_timeout`` the whole request.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_OPENAI_URL,
        api_key: str | None = None,
        temperature: float | None = None,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        num_output: int = DEFAULT_NUM_OUTPUT,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        client: httpx.Client | None = None,
        api_base: str | None = None,
    ) -> None:
        base_url = _base_url(base_url, api_base)
        self.model_name = check_model(model)
        check_temperature(temperature)
        check_window(context_window, num_output)
        self.context_window = context_window
        self.num_output = num_output
        self.temperature = temperature
        self.model = f"openai:{self.model_name}"
        self.connection = openai_connection(
            model=self.model_name, base_url=base_url, api_key=api_key, timeout=timeout,
            max_retries=max_retries, retry_backoff=retry_backoff, client=client,
            request_timeout=request_timeout, slow_hint=slow_reply_hint(num_output),
        )
        self.connection.max_reply_chars = reply_char_limit(num_output)

    @property
    def base_url(self) -> str:
        return self.connection.base_url

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        body = openai_chat_body(self.model_name, messages, temperature=self.temperature,
                                max_tokens=self.num_output)
        return self.connection.stream("/chat/completions", body, decode_openai_stream)

    def chat_with_tools(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> Message:
        """One non-streamed request offering ``tools`` (OpenAI format); the assistant's reply."""
        bad = [t for t in tools if not isinstance(t, dict) or t.get("type") != "function"]
        if bad:
            raise ConfigError(
                f"tools must be OpenAI tool dicts ({{'type': 'function', 'function': {{...}}}}),"
                f" got {str(bad[0])[:100]!r}: use FunctionTool.to_openai_tool()"
            )
        body = openai_chat_body(
            self.model_name, messages, temperature=self.temperature, stream=False, tools=tools,
            max_tokens=self.num_output,
        )
        data = self.connection.request_json("POST", "/chat/completions", body)
        try:
            return parse_tool_reply(data)
        except LLMResponseError as exc:
            raise LLMResponseError(f"{self.connection.describe()} sent {exc}") from exc

    def __repr__(self) -> str:
        return f"OpenAILLM(model={self.model_name!r}, base_url={self.base_url!r})"


def _base_url(base_url: str, api_base: str | None) -> str:
    """``api_base`` is LlamaIndex's name for ``base_url``: either may be given, not both."""
    if api_base is None:
        return base_url
    if base_url != DEFAULT_OPENAI_URL and base_url != api_base:
        raise ConfigError(
            f"api_base ({api_base!r}) and base_url ({base_url!r}) name the same setting: "
            "give only base_url"
        )
    return api_base
