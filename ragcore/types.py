"""Plain data shared by every pipeline stage: documents, nodes, scored nodes, chat messages,
and the structured request behind one of our LLM calls (``AnswerRequest``).

These are dataclasses with no I/O. Embeddings are not stored here: they live in the vector store.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

# Metadata keys that say where a text came from but carry little meaning for similarity search.
# Shown to the LLM (so it can cite files and pages) but kept out of the embedded text by default.
DEFAULT_EXCLUDED_EMBED_KEYS = (
    "file_path",
    "file_type",
    "file_size",
    "creation_date",
    "last_modified_date",
)
DEFAULT_EXCLUDED_LLM_KEYS = ("file_type", "file_size", "creation_date", "last_modified_date")


class MetadataMode(str, Enum):
    """Which metadata keys a node's content includes, by the reader of that content."""

    ALL = "all"
    EMBED = "embed"
    LLM = "llm"
    NONE = "none"


def _new_id() -> str:
    return str(uuid.uuid4())


def format_metadata(
    metadata: dict[str, Any],
    mode: MetadataMode,
    excluded_embed: list[str] | tuple[str, ...],
    excluded_llm: list[str] | tuple[str, ...],
) -> str:
    """Render metadata as 'key: value' lines for the given reader (embedder or LLM)."""
    if mode is MetadataMode.NONE:
        return ""
    excluded: set[str] = set()
    if mode is MetadataMode.EMBED:
        excluded = set(excluded_embed)
    elif mode is MetadataMode.LLM:
        excluded = set(excluded_llm)
    return "\n".join(f"{k}: {v}" for k, v in metadata.items() if k not in excluded)


_HASH_BLOCK = 1 << 20  # characters of a document's text hashed at a time


@dataclass(slots=True)
class Document:
    """A whole source text (a file, a PDF page, a database row) with its metadata."""

    text: str
    doc_id: str = field(default_factory=_new_id)
    metadata: dict[str, Any] = field(default_factory=dict)
    excluded_embed_metadata_keys: list[str] = field(
        default_factory=lambda: list(DEFAULT_EXCLUDED_EMBED_KEYS)
    )
    excluded_llm_metadata_keys: list[str] = field(
        default_factory=lambda: list(DEFAULT_EXCLUDED_LLM_KEYS)
    )

    @property
    def hash(self) -> str:
        """Content hash of text and metadata: re-ingesting an unchanged document does no work.

        The SHA-256 of ``json.dumps([text, metadata], sort_keys=True)``, fed a block of the text
        at a time (JSON escapes each character on its own), so a 200 MB text is never copied."""
        digest = hashlib.sha256(b'["')
        for start in range(0, len(self.text), _HASH_BLOCK):
            digest.update(json.dumps(self.text[start : start + _HASH_BLOCK])[1:-1].encode())
        metadata = json.dumps(self.metadata, sort_keys=True, default=str)
        digest.update(f'", {metadata}]'.encode())
        return digest.hexdigest()

    def metadata_str(self, mode: MetadataMode) -> str:
        return format_metadata(
            self.metadata, mode, self.excluded_embed_metadata_keys, self.excluded_llm_metadata_keys
        )

    @property
    def id_(self) -> str:
        """LlamaIndex's name for ``doc_id``."""
        return self.doc_id

    def get_content(self, metadata_mode: MetadataMode = MetadataMode.NONE) -> str:
        """The text, after a metadata header for ``metadata_mode`` (LlamaIndex's name)."""
        header = self.metadata_str(metadata_mode)
        return f"{header}\n\n{self.text}" if header else self.text


@dataclass(slots=True)
class Node:
    """A chunk of a document: ``document.text[start_char:end_char] == node.text``."""

    text: str
    node_id: str = field(default_factory=_new_id)
    ref_doc_id: str | None = None
    start_char: int | None = None
    end_char: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    excluded_embed_metadata_keys: list[str] = field(
        default_factory=lambda: list(DEFAULT_EXCLUDED_EMBED_KEYS)
    )
    excluded_llm_metadata_keys: list[str] = field(
        default_factory=lambda: list(DEFAULT_EXCLUDED_LLM_KEYS)
    )
    prev_id: str | None = None
    next_id: str | None = None
    parent_id: str | None = None
    child_ids: list[str] = field(default_factory=list)

    def metadata_str(self, mode: MetadataMode) -> str:
        return format_metadata(
            self.metadata, mode, self.excluded_embed_metadata_keys, self.excluded_llm_metadata_keys
        )

    def content(self, mode: MetadataMode = MetadataMode.NONE) -> str:
        """The text as the embedder (EMBED) or the LLM (LLM) sees it: metadata header + text."""
        header = self.metadata_str(mode)
        return f"{header}\n\n{self.text}" if header else self.text

    @property
    def id_(self) -> str:
        """LlamaIndex's name for ``node_id``."""
        return self.node_id

    def get_content(self, metadata_mode: MetadataMode = MetadataMode.NONE) -> str:
        """LlamaIndex's name for ``content``."""
        return self.content(metadata_mode)

    def get_text(self) -> str:
        """LlamaIndex's name for ``text``."""
        return self.text

    def quoting(self, sentence: str, suffix: str) -> Node:
        """A node of one ``sentence`` of this node's text, as a passage of its own citing this
        one (its file and place); its id is this node's with ``suffix``."""
        start = self.text.find(sentence)
        offset = self.start_char if self.start_char is not None and start >= 0 else None
        return Node(
            text=sentence,
            node_id=self.node_id + suffix,
            ref_doc_id=self.ref_doc_id,
            metadata=dict(self.metadata),
            excluded_embed_metadata_keys=list(self.excluded_embed_metadata_keys),
            excluded_llm_metadata_keys=list(self.excluded_llm_metadata_keys),
            start_char=None if offset is None else offset + start,
            end_char=None if offset is None else offset + start + len(sentence),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "node_id": self.node_id,
            "ref_doc_id": self.ref_doc_id,
            "start_char": self.start_char,
            "end_char": self.end_char,
            "metadata": self.metadata,
            "excluded_embed_metadata_keys": self.excluded_embed_metadata_keys,
            "excluded_llm_metadata_keys": self.excluded_llm_metadata_keys,
            "prev_id": self.prev_id,
            "next_id": self.next_id,
            "parent_id": self.parent_id,
            "child_ids": self.child_ids,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Node:
        return cls(**data)


@dataclass(slots=True)
class ScoredNode:
    """A retrieved node and its similarity score (higher is better)."""

    node: Node
    score: float | None = None

    @property
    def file_name(self) -> str | None:
        return self.node.metadata.get("file_name")

    @property
    def page(self) -> str | None:
        page = self.node.metadata.get("page_label", self.node.metadata.get("page"))
        return None if page is None else str(page)

    # LlamaIndex's NodeWithScore reads through to its node.
    @property
    def node_id(self) -> str:
        return self.node.node_id

    @property
    def text(self) -> str:
        return self.node.text

    @property
    def metadata(self) -> dict[str, Any]:
        return self.node.metadata

    def get_content(self, metadata_mode: MetadataMode = MetadataMode.NONE) -> str:
        return self.node.content(metadata_mode)


@dataclass(slots=True, frozen=True)
class ToolCall:
    """One tool call requested by a model (OpenAI tools API shape)."""

    id: str
    name: str
    arguments: str  # JSON text, exactly as the model wrote it


@dataclass(slots=True)
class Message:
    """One chat message. ``role`` is system, user, assistant or tool."""

    role: str
    content: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        if self.name:
            data["name"] = self.name
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        calls = [ToolCall(**c) for c in data.get("tool_calls", [])]
        return cls(
            role=data["role"],
            content=data.get("content") or "",
            tool_calls=calls,
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
        )


# What a call asks, by the role of its prompt (``AnswerRequest.kind``).
REQUEST_KINDS = ("qa", "refine", "summary", "simple_summarize", "generation",  # response modes
                 "condense", "chat", "context_chat", "react")                 # chat and agent


@dataclass(frozen=True, slots=True)
class AnswerRequest:
    """What one of our LLM calls asks, as data: the structure its formatted prompt was made from.

    The engines hand it to a backend that answers from it instead of reading the prompt (the
    extractive answerer, through ``llms.base.answering``); every other backend reads only the
    messages, so a user's own templates or system prompt change nothing a request says.

    ``kind`` is the prompt's role (``REQUEST_KINDS``). ``question``: the question, or the user's
    latest message in a chat. ``passages``: the texts the prompt gives as documents, in order
    (a packed context is one text; for ``react``, this turn's tool observations).
    ``existing_answer``: refine's answer so far. ``conversation``: a chat's earlier messages,
    oldest first, without the latest. ``tools``: for ``react``, each tool's name and the
    argument a question goes to, in the order the prompt lists them.
    """

    kind: str
    question: str = ""
    passages: tuple[str, ...] = ()
    existing_answer: str = ""
    conversation: tuple[Message, ...] = ()
    tools: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in REQUEST_KINDS:
            raise ValueError(f"unknown request kind {self.kind!r}: use one of {REQUEST_KINDS}")
        for name in ("passages", "conversation", "tools"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
