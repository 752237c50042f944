"""What every text splitter shares: options, validation, text -> spans -> nodes, settings.

A concrete splitter (``SentenceSplitter``, ``TokenTextSplitter``) only says which cut levels it
tries, coarsest first; the engine in ``merge`` does the rest. ``HierarchicalNodeParser`` reuses a
splitter per level through ``spans``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import ConfigError
from ..types import Document, Node
from .blocks import block_span_lists, block_spans
from .boundaries import Level
from .merge import Span, chunk_spans
from .nodes import MIN_BUDGET, Progress, build_nodes, text_budget
from .token_index import TokenIndex
from .window import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE

# Bump when a change to the algorithm changes the chunks produced for the same settings, so
# caches keyed by ``settings()`` are invalidated.
ALGORITHM_VERSION = 1


def check_int(name: str, value: object, minimum: int) -> int:
    """``value`` as a validated int option, or a ConfigError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{name} ({value}) must be at least {minimum}")
    return value


def check_sizes(chunk_size: object, chunk_overlap: object) -> tuple[int, int]:
    """Validated (chunk_size, chunk_overlap)."""
    size = check_int("chunk_size", chunk_size, MIN_BUDGET)
    overlap = check_int("chunk_overlap", chunk_overlap, 0)
    if overlap >= size:
        raise ConfigError(
            f"chunk_overlap ({overlap}) must be smaller than chunk_size ({size}); "
            f"e.g. chunk_overlap={size // 10}"
        )
    return size, overlap


def check_text(name: str, value: object) -> str:
    """A validated non-empty string option."""
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{name} must be a non-empty string, got {value!r}")
    return value


class TextSplitter:
    """Splits text into chunks of at most ``chunk_size`` tokens with ``chunk_overlap`` overlap.

    ``levels`` are the cut levels tried in order, coarsest first (see ``boundaries``); the last
    should be ``CharLevel()`` so that any piece can be cut.
    """

    def __init__(
        self,
        *,
        levels: Sequence[Level],
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        self.chunk_size, self.chunk_overlap = check_sizes(chunk_size, chunk_overlap)
        self.include_metadata = bool(include_metadata)
        self.include_prev_next_rel = bool(include_prev_next_rel)
        if not levels:
            raise ConfigError("a splitter needs at least one cut level, e.g. CharLevel()")
        self.levels = tuple(levels)

    def options(self) -> dict[str, Any]:
        """The options specific to this splitter (for ``settings``)."""
        return {"levels": [repr(level) for level in self.levels]}

    def settings(self) -> dict[str, Any]:
        """Everything that decides the chunks: for cache keys and index manifests."""
        return {
            "splitter": type(self).__name__,
            "chunk_size": self.chunk_size,
            "chunk_overlap": self.chunk_overlap,
            **self.options(),
            "include_metadata": self.include_metadata,
            "include_prev_next_rel": self.include_prev_next_rel,
            "tokenizer": "cl100k_base",
            "algorithm_version": ALGORITHM_VERSION,
        }

    def settings_hash(self) -> str:
        """A short stable digest of ``settings()`` (salts node ids)."""
        payload = json.dumps(self.settings(), sort_keys=True, ensure_ascii=True)
        return hashlib.sha256(payload.encode("ascii")).hexdigest()[:16]

    def spans(self, index: TokenIndex, start: int, end: int, *, budget: int) -> list[Span]:
        """Chunks of ``index.text[start:end]`` within ``budget`` tokens, as exact offsets."""
        return chunk_spans(
            index,
            start,
            end,
            levels=self.levels,
            budget=budget,
            overlap=min(self.chunk_overlap, budget - 1),
        )

    def split_text_spans(self, text: str) -> list[Span]:
        """Chunk offsets: ``text[start:end]`` is each chunk, stripped of surrounding whitespace."""
        if not text or text.isspace():
            return []
        return self._block_spans(text, self.chunk_size)

    def split_text(self, text: str) -> list[str]:
        """The chunks of ``text`` (no metadata counted)."""
        return [text[start:end] for start, end in self.split_text_spans(text)]

    def get_nodes_from_documents(
        self, documents: Sequence[Document], *, progress: Progress | None = None
    ) -> list[Node]:
        """Nodes for every document, in order; metadata shown with a chunk counts against it."""
        salt = self.settings_hash()
        nodes: list[Node] = []
        for done, document in enumerate(documents, start=1):
            nodes.extend(
                build_nodes(
                    document,
                    self.document_spans(document),
                    salt=salt,
                    include_metadata=self.include_metadata,
                    include_prev_next_rel=self.include_prev_next_rel,
                )
            )
            if progress is not None:
                progress(done, len(documents))
        return nodes

    def document_spans(self, document: Document) -> list[Span]:
        """Chunk offsets into ``document.text``, its metadata header counted against the budget."""
        return [span for spans in self.iter_document_spans(document) for span in spans]

    def iter_document_spans(self, document: Document) -> Iterator[list[Span]]:
        """``document_spans`` as they are found: a list per block of a long text."""
        text = document.text
        if not text or text.isspace():
            return iter(())
        budget = text_budget(self.chunk_size, document, include_metadata=self.include_metadata)
        return block_span_lists(
            text, lambda index, start, end: self.spans(index, start, end, budget=budget))

    def _block_spans(self, text: str, budget: int) -> list[Span]:
        """Chunks of all of ``text``, a block at a time when it is long (``blocks``)."""
        return list(block_spans(
            text, lambda index, start, end: self.spans(index, start, end, budget=budget)))

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v!r}" for k, v in self.settings().items() if k != "splitter")
        return f"{type(self).__name__}({options})"
