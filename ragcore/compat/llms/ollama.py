"""``llama_index.llms.ollama.Ollama``: ragcore's ``OllamaLLM`` with LlamaIndex's calls.

``Ollama(model="llama3", request_timeout=360.0)`` as in LlamaIndex; without ``base_url`` the
server is ``OLLAMA_HOST`` when set (as the ``ollama`` client reads it), else ragcore's default.
``complete``, ``chat``, ``stream_complete`` and ``stream_chat`` are ``compat.llm_calls``.
"""

from __future__ import annotations

from typing import Any

from ...llms.ollama import OllamaLLM
from ...http.servers import ollama_url
from .. import llm_calls
from ..refusals import refuse

_HINTS = {
    "json_mode": "ragcore asks for text; tools go through ReActAgent",
    "additional_kwargs": "ragcore sends temperature and num_ctx; set them as arguments",
    "is_function_calling_model": "Ollama tool calls are not used by ragcore: use ReActAgent",
    "keep_alive": "ragcore leaves Ollama's keep_alive at the server's default",
}


class Ollama(OllamaLLM):
    """A model served by Ollama, made with LlamaIndex's keywords."""

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        temperature: float | None = None,
        context_window: int | None = None,
        request_timeout: float | None = None,
        **options: Any,
    ) -> None:
        known = {k: options.pop(k) for k in list(options)
                 if k in ("num_ctx", "num_output", "timeout", "max_retries", "client")}
        refuse("Ollama", options, _HINTS)
        if request_timeout is not None:
            known["request_timeout"] = request_timeout
        url = base_url or ollama_url()
        super().__init__(model=model, base_url=url, temperature=temperature,
                         context_window=context_window, **known)

    complete = llm_calls.complete
    stream_complete = llm_calls.stream_complete
    chat = llm_calls.chat
    stream_chat = llm_calls.stream_chat

