"""``llama_index.core.schema``: ragcore's data classes under LlamaIndex's names."""

from __future__ import annotations

from dataclasses import dataclass

from ...types import MetadataMode, Node, ScoredNode
from ..documents import Document

TextNode = Node
BaseNode = Node
NodeWithScore = ScoredNode


@dataclass(frozen=True, slots=True)
class QueryBundle:
    """A question (``query_str``); anything taking a question takes this too (``str()``)."""

    query_str: str

    def __str__(self) -> str:
        return self.query_str


__all__ = ["BaseNode", "Document", "MetadataMode", "NodeWithScore", "QueryBundle", "TextNode"]
