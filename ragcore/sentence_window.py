"""Sentence-window parsing: one node per sentence, carrying the sentences around it.

A node is a single sentence, so its embedding is sharp and retrieval finds the exact sentence;
its metadata carries the ``window`` (the sentence with ``window_size`` sentences on each side)
and the ``original_text``. At query time ``MetadataReplacementPostProcessor(target_metadata_key=
"window")`` (``ragcore.postprocess``) shows the LLM the window instead of the lone sentence.
Both keys are hidden from the embedder and the LLM's metadata header, as in LlamaIndex's
``SentenceWindowNodeParser``.

Unlike the splitters in ``ragcore.chunking`` it has no token budget: sentences come from the
same sentence rule (``chunking.sentences``), with exact offsets into the document, stable ids
and prev/next links.
"""

from __future__ import annotations

from typing import Any, Sequence

from .chunking import sentences
from .chunking.nodes import build_nodes
from .errors import ConfigError
from .types import Document, Node

DEFAULT_WINDOW_SIZE = 3


class SentenceWindowNodeParser:
    """Documents to one node per sentence, each with its surrounding window in metadata."""

    def __init__(
        self,
        *,
        window_size: int = DEFAULT_WINDOW_SIZE,
        window_metadata_key: str = "window",
        original_text_metadata_key: str = "original_text",
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 0:
            raise ConfigError(f"window_size ({window_size!r}) must be a whole number of "
                              "sentences, e.g. 3")
        for name, key in (("window_metadata_key", window_metadata_key),
                          ("original_text_metadata_key", original_text_metadata_key)):
            if not isinstance(key, str) or not key:
                raise ConfigError(f"{name} ({key!r}) must be a non-empty metadata key")
        self.window_size = window_size
        self.window_metadata_key = window_metadata_key
        self.original_text_metadata_key = original_text_metadata_key
        self.include_metadata = include_metadata
        self.include_prev_next_rel = include_prev_next_rel

    @classmethod
    def from_defaults(cls, **options: Any) -> SentenceWindowNodeParser:
        """LlamaIndex's constructor (the same keywords)."""
        return cls(**options)

    def settings(self) -> dict[str, Any]:
        return {"window_size": self.window_size, "window_metadata_key": self.window_metadata_key,
                "original_text_metadata_key": self.original_text_metadata_key,
                "include_metadata": self.include_metadata}

    def get_nodes_from_documents(
        self, documents: Sequence[Document], **_progress: Any
    ) -> list[Node]:
        """Sentence nodes of every document, in order."""
        return [node for document in documents for node in self._document_nodes(document)]

    def _document_nodes(self, document: Document) -> list[Node]:
        spans = sentence_spans(document.text)
        salt = f"sentence-window/{self.window_size}"
        nodes = build_nodes(document, spans, salt=salt, include_metadata=self.include_metadata,
                            include_prev_next_rel=self.include_prev_next_rel)
        hidden = (self.window_metadata_key, self.original_text_metadata_key)
        for i, node in enumerate(nodes):
            around = nodes[max(0, i - self.window_size): i + self.window_size + 1]
            node.metadata[self.window_metadata_key] = " ".join(n.text for n in around)
            node.metadata[self.original_text_metadata_key] = node.text
            for keys in (node.excluded_embed_metadata_keys, node.excluded_llm_metadata_keys):
                keys.extend(k for k in hidden if k not in keys)
        return nodes


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, surrounding whitespace left out."""
    spans, start = [], 0
    for sentence in sentences(text):
        end = start + len(sentence)
        stripped = sentence.strip()
        if stripped:
            left = start + (len(sentence) - len(sentence.lstrip()))
            spans.append((left, left + len(stripped)))
        start = end
    return spans
