"""The workspace's facts about an index: its record on disk and the stats shown to users.

``IndexRecord`` is what the workspace keeps beside each index folder (``indexes/<name>.json``):
the embedding model choice the index is bound to, its chunking, dates, and a cached token count.
``IndexInfo`` is the read-only summary the CLI and the Indexes page list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import WorkspaceError

if TYPE_CHECKING:
    from ..index import VectorStoreIndex

RECORD_FORMAT = "ragcore-workspace-index"


@dataclass(slots=True, frozen=True)
class IndexInfo:
    """What the Indexes page and ``ragcore indexes`` show for one index."""

    name: str
    files: int
    documents: int
    nodes: int
    tokens: int | None
    bytes_on_disk: int
    embed_model: str
    chunk_size: int | None
    chunk_overlap: int | None
    created: str
    updated: str


@dataclass(slots=True)
class IndexRecord:
    """The workspace's own facts about an index, kept beside the index folder."""

    embedding: dict[str, Any]
    embed_model: str
    chunk_size: int | None
    chunk_overlap: int | None
    created: str
    updated: str
    tokens: int | None = None
    tokens_at: str = ""  # the index's "updated" stamp when tokens were counted

    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, "version": 1, "embedding": self.embedding,
                "embed_model": self.embed_model, "chunk_size": self.chunk_size,
                "chunk_overlap": self.chunk_overlap, "created": self.created,
                "updated": self.updated, "tokens": self.tokens, "tokens_at": self.tokens_at}

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path) -> IndexRecord:
        if data.get("format") != RECORD_FORMAT:
            raise WorkspaceError(f"{path} is not a ragcore index record; delete or restore it")
        return cls(data.get("embedding") or {}, str(data.get("embed_model", "")),
                   data.get("chunk_size"), data.get("chunk_overlap"),
                   str(data.get("created", "")), str(data.get("updated", "")),
                   data.get("tokens"), str(data.get("tokens_at", "")))


def count_index_tokens(index: VectorStoreIndex) -> int:
    """cl100k tokens in every node's text (loads the tokenizer; the result is cached by callers)."""
    from ..tokens import count_tokens

    return sum(count_tokens(node.text) for node in index.all_nodes())
