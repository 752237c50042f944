"""Embeddings from an Ollama server: ``POST /api/embed`` with ``{"model", "input": [...]}``.

The reply is ``{"embeddings": [[...], ...]}``, one vector per input, in order. Ollama truncates
inputs longer than the model's window itself; ``max_input_tokens`` (if given) lets the chunker
warn before that happens. Batching, checks and errors are shared with the OpenAI-compatible
embedder (``remote``); connecting to the server with the Ollama chat backend (``servers``).
"""

from __future__ import annotations

from typing import Any

import httpx

from ..errors import LLMResponseError
from ..http.options import check_model
from ..http.servers import DEFAULT_OLLAMA_URL, ollama_connection
from .remote import EMBED_SLOW_HINT, RemoteEmbedder
from .stall import DEFAULT_STALL_LIMIT

# The whole of one batch request, reply included (a keep-alive drip cannot outlast it).
DEFAULT_REQUEST_TIMEOUT = 300.0
DEFAULT_TIMEOUT = 120.0


def ollama_embed_body(model: str, texts: list[str]) -> dict[str, Any]:
    return {"model": model, "input": texts}


def read_ollama_embeddings(data: Any) -> list[list[float]]:
    if not isinstance(data, dict) or not isinstance(data.get("embeddings"), list):
        raise LLMResponseError(
            f'/api/embed answered {str(data)[:200]!r}, not {{"embeddings": [[...]]}}: '
            "is the server an up-to-date Ollama (0.3 or later)?"
        )
    return data["embeddings"]


class OllamaEmbedder(RemoteEmbedder):
    """An embedding model served by Ollama (e.g. ``nomic-embed-text``, ``all-minilm``)."""

    path = "/api/embed"

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_OLLAMA_URL,
        batch_size: int = 32,
        max_input_tokens: int | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        client: httpx.Client | None = None,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        stall_limit: int = DEFAULT_STALL_LIMIT,
    ) -> None:
        name = check_model(model)
        connection = ollama_connection(
            model=name, base_url=base_url, timeout=timeout, max_retries=max_retries,
            retry_backoff=retry_backoff, client=client,
            request_timeout=request_timeout, slow_hint=EMBED_SLOW_HINT,
        )
        super().__init__(
            connection, prefix="ollama", batch_size=batch_size,
            max_input_tokens=max_input_tokens, stall_limit=stall_limit,
        )

    def request_body(self, texts: list[str]) -> dict[str, Any]:
        return ollama_embed_body(self.connection.model, texts)

    def read_vectors(self, data: Any) -> list[list[float]]:
        return read_ollama_embeddings(data)

