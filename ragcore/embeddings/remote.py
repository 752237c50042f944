"""The driver shared by the HTTP embedders (``ollama``, ``openai``): batches, checks, errors.

Each server-specific module builds its ``Connection``, the request body and reads the vectors
out of the reply (``RemoteEmbedder.request_body``/``read_vectors``); this module checks the
options both share, sends the batches over the shared ``ragcore.http.client.Connection`` (timeouts,
retries, an overall time limit per request, a reply size that grows with the batch), checks that
every text got one finite vector of the same size, normalizes, and turns the LLM-layer errors
into ``EmbeddingError`` with the server, URL and model in the message. The embedder lives for a
whole ingest, so its ``StallGuard`` (``stall``) makes it fail at once, with a clear message,
after several requests in a row found the server not answering.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Sequence

import numpy as np

from ..errors import ConfigError, EmbeddingError, LLMConnectionError, LLMError
from ..http.client import Connection
from ..http.body import embedding_reply_bytes
from ..http.options import check_positive
from .base import normalize
from .stall import DEFAULT_STALL_COOLDOWN, DEFAULT_STALL_LIMIT, StallGuard

# What to do when one batch request outlasts its time limit.
EMBED_SLOW_HINT = ("Check that the embedding server is not overloaded, or raise the time limit "
                   "(request_timeout=...) or lower batch_size.")


def check_batch_size(batch_size: int) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
        raise ConfigError(f"batch_size ({batch_size!r}) must be a positive integer")
    return batch_size


class RemoteEmbedder(ABC):
    """An embedder behind an HTTP ``Connection``; a subclass names the path and the wire format."""

    path: ClassVar[str]  # where the server takes embedding requests, e.g. "/api/embed"

    def __init__(
        self,
        connection: Connection,
        *,
        prefix: str,
        batch_size: int,
        max_input_tokens: int | None,
        stall_limit: int = DEFAULT_STALL_LIMIT,
        stall_cooldown: float = DEFAULT_STALL_COOLDOWN,
    ) -> None:
        check_positive("max_input_tokens", max_input_tokens, optional=True)
        self.batch_size = check_batch_size(batch_size)
        self.max_input_tokens = max_input_tokens
        self.model_name = f"{prefix}:{connection.model}"
        self.connection = connection
        self.stall = StallGuard(f"{connection.describe()}", limit=stall_limit,
                                cooldown=stall_cooldown)

    @abstractmethod
    def request_body(self, texts: list[str]) -> dict[str, Any]:
        """The JSON body asking for the vectors of ``texts``."""
        ...

    @abstractmethod
    def read_vectors(self, data: Any) -> list[list[float]]:
        """The vectors in a reply, in input order; ``LLMResponseError`` for another shape."""
        ...

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches of ``batch_size``: an (n, dim) normalized float32 array."""
        parts: list[np.ndarray] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            vectors = self._request(batch)
            parts.append(_as_matrix(vectors, len(batch), self.connection))
        if not parts:
            return np.zeros((0, 0), dtype=np.float32)
        dims = {p.shape[1] for p in parts}
        if len(dims) > 1:
            raise EmbeddingError(
                f"{self.connection.describe()} returned vectors of different sizes "
                f"{sorted(dims)}: check that the model did not change while embedding"
            )
        return normalize(np.concatenate(parts))

    def _request(self, batch: list[str]) -> Any:
        """The vectors the server sends for ``batch``, unless it has stopped answering."""
        self.stall.check()
        try:
            reply = self.connection.request_json(
                "POST", self.path, self.request_body(batch),
                max_bytes=embedding_reply_bytes(len(batch)),
            )
        except LLMConnectionError as exc:  # refused, timed out or cut off: it may be stalled
            self.stall.failed(exc)
            raise EmbeddingError(str(exc)) from exc
        except LLMError as exc:
            self.stall.answered()
            raise EmbeddingError(str(exc)) from exc
        self.stall.answered()
        try:
            return self.read_vectors(reply)
        except LLMError as exc:
            raise EmbeddingError(str(exc)) from exc

    def __repr__(self) -> str:
        conn = self.connection
        return f"{type(self).__name__}(model={conn.model!r}, base_url={conn.base_url!r})"


def _as_matrix(vectors: Any, expected: int, connection: Connection) -> np.ndarray:
    try:
        matrix = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"{connection.describe()} returned embeddings that are not lists of numbers of one "
            "size: is this model an embedding model?"
        ) from exc
    if matrix.ndim != 2 or matrix.shape[0] != expected or matrix.shape[1] == 0:
        got = matrix.shape[0] if matrix.ndim else 0
        raise EmbeddingError(
            f"{connection.describe()} returned {got} vector{'' if got == 1 else 's'} for "
            f"{expected} text{'' if expected == 1 else 's'} (array shape {matrix.shape}): is "
            "this model an embedding model?"
        )
    if not np.isfinite(matrix).all():
        raise EmbeddingError(f"{connection.describe()} returned vectors with NaN or infinity")
    return matrix
