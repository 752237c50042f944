"""The Ollama backend: ``POST /api/chat`` with a newline-delimited JSON (NDJSON) stream.

Each line of the reply is one JSON object, ``{"message": {"role": "assistant", "content": "..."},
"done": false}``, ending with a ``"done": true`` object that carries the eval counts. Every request
asks for at most ``num_output`` tokens (``options.num_predict``: Ollama's own default is unlimited)
and is cut off after ``request_timeout`` seconds. The body builder and the line decoder are pure
functions; ``OllamaLLM`` is a thin driver over the shared HTTP ``Connection`` (timeouts, retries,
error translation). Unlike the OpenAI-compatible backend it has no tool calls: agents drive Ollama
models through the ReAct text format. Connecting to an Ollama server and listing its models is
shared with the Ollama embedder (``ragcore.http.servers``).
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Sequence

import httpx

from ..errors import ConfigError
from ..http.client import ServerStreamError, StreamFormatError, StreamIncomplete, decode_json_object
from ..http.options import (
    reply_char_limit,
    DEFAULT_REQUEST_TIMEOUT,
    check_model,
    check_positive,
    check_temperature,
    check_window,
)
from ..http.servers import (  # noqa: F401  (ollama_model_names is also imported from here)
    DEFAULT_OLLAMA_URL,
    list_ollama_models,
    ollama_connection,
    ollama_model_names,
    ollama_url,
)
from ..types import Message
from .base import DEFAULT_NUM_OUTPUT, slow_reply_hint

DEFAULT_CONTEXT_WINDOW = 8192
DEFAULT_TIMEOUT = 300.0  # a cold local model can take minutes to load and answer on a CPU
# Ollama lists embedding models beside chat models; names with these parts cannot chat.
_EMBEDDING_MODEL_HINTS = ("embed", "minilm", "bge-", "e5-")


def ollama_chat_body(
    model: str,
    messages: Sequence[Message],
    *,
    temperature: float | None = None,
    num_ctx: int | None = None,
    num_predict: int | None = None,
) -> dict[str, Any]:
    """The JSON body of a streamed ``/api/chat`` request (``num_predict``: the reply cap)."""
    check_positive("num_predict", num_predict, optional=True)
    options: dict[str, Any] = {}
    if temperature is not None:
        options["temperature"] = temperature
    if num_ctx is not None:
        options["num_ctx"] = num_ctx
    if num_predict is not None:
        options["num_predict"] = num_predict
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": m.role, "content": m.content} for m in messages],
        "stream": True,
    }
    if options:
        body["options"] = options
    return body


def ollama_stream_objects(lines: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank NDJSON line of an Ollama stream with its JSON object; an ``{"error":
    ...}`` line raises ``ServerStreamError`` (``/api/chat`` and ``/api/pull`` alike)."""
    for line in lines:
        if not line.strip():
            continue
        data = decode_json_object(line, "a line that is")
        if "error" in data:
            raise ServerStreamError(str(data["error"]))
        yield line, data


def decode_ollama_stream(lines: Iterable[str]) -> Iterator[str]:
    """Yield the text of each NDJSON line of an ``/api/chat`` stream until ``"done": true``."""
    for line, data in ollama_stream_objects(lines):
        message = data.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, str) and not data.get("done"):
            raise StreamFormatError('a line without "message": {"content": ...}', line)
        if content:
            yield content
        if data.get("done"):
            return
    raise StreamIncomplete('the stream ended before the final "done": true line')


def is_chat_model(name: str) -> bool:
    """Whether an Ollama model can chat: Ollama lists embedding models beside chat models."""
    return not any(hint in name.lower() for hint in _EMBEDDING_MODEL_HINTS)


def list_ollama_chat_models(base_url: str = DEFAULT_OLLAMA_URL, *, timeout: float = 5.0,
                            client: httpx.Client | None = None) -> list[str]:
    """The server's models that can chat, in its order (embedding models left out)."""
    names = list_ollama_models(base_url, timeout=timeout, client=client)
    return [name for name in names if is_chat_model(name)]


def first_chat_model(base_url: str, *, timeout: float = 5.0) -> str:
    """The model an Ollama backend uses when none is named: the server's first chat model."""
    models = list_ollama_chat_models(base_url, timeout=timeout)
    if not models:
        raise ConfigError(
            f"Ollama at {base_url} has no chat model: pull one (`ollama pull llama3.1`) or "
            "name it as 'ollama:MODEL'"
        )
    return models[0]


class OllamaLLM:
    """A model served by Ollama, streamed from ``/api/chat``.

    ``num_ctx`` is the window Ollama allocates; it defaults to ``context_window`` so the prompt
    budget ragcore packs for and the window the server uses agree (Ollama's own default is
    smaller and it silently drops the start of longer prompts). ``num_output`` caps every reply
    (sent as ``num_predict``) and is kept free of the prompt; ``timeout`` bounds connecting and
    each wait for data, ``request_timeout`` the whole request.
    """

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_OLLAMA_URL,
        temperature: float | None = None,
        num_ctx: int | None = None,
        context_window: int | None = None,
        num_output: int = DEFAULT_NUM_OUTPUT,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        client: httpx.Client | None = None,
    ) -> None:
        self.model_name = check_model(model)
        check_temperature(temperature)
        check_positive("num_ctx", num_ctx, optional=True)
        check_positive("context_window", context_window, optional=True)
        self.context_window = context_window or num_ctx or DEFAULT_CONTEXT_WINDOW
        check_window(self.context_window, num_output)
        self.num_output = num_output
        self.temperature = temperature
        self.num_ctx = num_ctx or self.context_window
        self.model = f"ollama:{self.model_name}"
        self.connection = ollama_connection(
            model=self.model_name, base_url=base_url, timeout=timeout,
            max_retries=max_retries, retry_backoff=retry_backoff, client=client,
            request_timeout=request_timeout, slow_hint=slow_reply_hint(num_output),
        )
        self.connection.max_reply_chars = reply_char_limit(num_output)

    @property
    def base_url(self) -> str:
        return self.connection.base_url

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        body = ollama_chat_body(
            self.model_name, messages, temperature=self.temperature, num_ctx=self.num_ctx,
            num_predict=self.num_output,
        )
        return self.connection.stream("/api/chat", body, decode_ollama_stream)

    def __repr__(self) -> str:
        return f"OllamaLLM(model={self.model_name!r}, base_url={self.base_url!r})"
