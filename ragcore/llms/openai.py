"""The OpenAI-compatible backend: ``POST {base_url}/chat/completions``, streamed as SSE.

Works with OpenAI and with servers that copy its API (vLLM, llama.cpp's server, LM Studio,
Ollama's /v1). The reply is a stream of SSE events, ``data: {"choices": [{"delta": {"content":
"..."}}]}``, ending with ``data: [DONE]``; comment lines (``: keep-alive``) are skipped and an
event's ``data:`` lines are joined. Unlike the Ollama backend it also answers with tool calls
(``chat_with_tools``, one non-streamed request), which the function-calling agent uses.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Iterator, Sequence

import httpx

from ..errors import ConfigError, LLMError, LLMResponseError
from ..types import Message, ToolCall
from ..http import (
    Connection,
    ServerStreamError,
    StreamFormatError,
    StreamIncomplete,
    connect,
    decode_json_object,
    fetch_model_names,
)
from ..http_options import check_base_url, check_model, check_temperature, check_window

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
DEFAULT_CONTEXT_WINDOW = 8192  # safe for local servers; raise it for hosted models
DEFAULT_TIMEOUT = 120.0
START_HINT = (
    "Check that the server is running and that the base URL is right (it usually ends in /v1)."
)
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
) -> dict[str, Any]:
    """The JSON body of a ``/chat/completions`` request."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [openai_message(m) for m in messages],
        "stream": stream,
    }
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


def openai_model_names(data: Any) -> list[str]:
    """The model ids in a ``GET /models`` reply: ``{"data": [{"id": ...}, ...]}``."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise LLMResponseError(f"/models answered {str(data)[:200]!r}, not {{'data': [...]}}")
    return [m["id"] for m in data["data"] if isinstance(m, dict) and "id" in m]


def openai_connection(
    *,
    model: str,
    base_url: str,
    api_key: str | None,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_backoff: float,
    client: httpx.Client | None,
) -> Connection:
    """A ``Connection`` to an OpenAI-compatible server, sending the API key when there is one."""
    base_url = check_base_url(base_url)
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    if not key and base_url == DEFAULT_OPENAI_URL:
        raise ConfigError(
            "OpenAI needs an API key: set OPENAI_API_KEY or pass api_key=... "
            "(or pass base_url= for a local OpenAI-compatible server)"
        )
    return connect(
        "OpenAI-compatible server", model=model, base_url=base_url, timeout=timeout,
        max_retries=max_retries, retry_backoff=retry_backoff, client=client,
        start_hint=START_HINT, headers={"Authorization": f"Bearer {key}"} if key else None,
        status_hint=_status_hint,
    )


def _status_hint(connection: Connection, status: int, message: str, path: str) -> str:
    if status == 401:
        sent = connection.headers is not None
        return ("The server rejected the API key: check OPENAI_API_KEY or api_key=." if sent
                else "The server needs an API key: set OPENAI_API_KEY or pass api_key=.")
    if status != 404 or path.endswith("/models") or "model" not in message.lower():
        return ""
    try:
        names = fetch_model_names(connection, "/models", openai_model_names, timeout=5.0)
    except LLMError:
        return "Check the model name."
    return f"Models on this server: {', '.join(names) or '(none)'}."


def list_openai_models(
    base_url: str = DEFAULT_OPENAI_URL,
    api_key: str | None = None,
    *,
    timeout: float = 5.0,
    client: httpx.Client | None = None,
) -> list[str]:
    """The model ids an OpenAI-compatible server offers (``GET /models``), no retries."""
    connection = openai_connection(
        model="", base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0,
        retry_backoff=0.0, client=client,
    )
    return fetch_model_names(connection, "/models", openai_model_names, timeout=timeout)


class OpenAILLM:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_OPENAI_URL,
        api_key: str | None = None,
        temperature: float | None = None,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
        num_output: int = 512,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        client: httpx.Client | None = None,
    ) -> None:
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
        )

    @property
    def base_url(self) -> str:
        return self.connection.base_url

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        body = openai_chat_body(self.model_name, messages, temperature=self.temperature)
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
            self.model_name, messages, temperature=self.temperature, stream=False, tools=tools
        )
        data = self.connection.request_json("POST", "/chat/completions", body)
        try:
            return parse_tool_reply(data)
        except LLMResponseError as exc:
            raise LLMResponseError(f"{self.connection.describe()} sent {exc}") from exc

    def __repr__(self) -> str:
        return f"OpenAILLM(model={self.model_name!r}, base_url={self.base_url!r})"
