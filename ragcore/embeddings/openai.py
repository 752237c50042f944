"""Embeddings from an OpenAI-compatible server: ``POST {base_url}/embeddings``.

The reply is ``{"data": [{"embedding": [...], "index": i}, ...]}``; vectors are put back in
input order by ``index``. Works with OpenAI, vLLM, llama.cpp's server, LM Studio and Ollama's
/v1. Batching, checks and errors are shared with the Ollama embedder (``remote``); connecting
to the server with the OpenAI-compatible chat backend (``servers``).
"""

from __future__ import annotations

from typing import Any

import httpx

from ..errors import LLMResponseError
from ..http.options import check_model
from ..http.servers import DEFAULT_OPENAI_URL, openai_connection
from .remote import EMBED_SLOW_HINT, RemoteEmbedder
from .stall import DEFAULT_STALL_LIMIT

# The whole of one batch request, reply included (a keep-alive drip cannot outlast it).
DEFAULT_REQUEST_TIMEOUT = 120.0
DEFAULT_TIMEOUT = 60.0


def openai_embed_body(model: str, texts: list[str]) -> dict[str, Any]:
    return {"model": model, "input": texts, "encoding_format": "float"}


def read_openai_embeddings(data: Any) -> list[list[float]]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(
        isinstance(i, dict) and "embedding" in i for i in items
    ):
        raise LLMResponseError(
            f'/embeddings answered {str(data)[:200]!r}, not {{"data": [{{"embedding": ...}}]}}'
        )
    ordered = sorted(enumerate(items), key=lambda pair: (pair[1].get("index", pair[0]), pair[0]))
    return [item["embedding"] for _, item in ordered]


class OpenAIEmbedder(RemoteEmbedder):
    """An embedding model behind an OpenAI-compatible ``/embeddings`` endpoint."""

    path = "/embeddings"

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_OPENAI_URL,
        api_key: str | None = None,
        batch_size: int = 64,
        max_input_tokens: int | None = None,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        max_retries: int = 2,
        retry_backoff: float = 0.5,
        client: httpx.Client | None = None,
        request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
        stall_limit: int = DEFAULT_STALL_LIMIT,
    ) -> None:
        name = check_model(model)
        connection = openai_connection(
            model=name, base_url=base_url, api_key=api_key, timeout=timeout,
            max_retries=max_retries, retry_backoff=retry_backoff, client=client,
            request_timeout=request_timeout, slow_hint=EMBED_SLOW_HINT,
        )
        super().__init__(
            connection, prefix="openai", batch_size=batch_size,
            max_input_tokens=max_input_tokens, stall_limit=stall_limit,
        )

    def request_body(self, texts: list[str]) -> dict[str, Any]:
        return openai_embed_body(self.connection.model, texts)

    def read_vectors(self, data: Any) -> list[list[float]]:
        return read_openai_embeddings(data)
