"""LlamaIndex's ``Document(text=..., id_=..., metadata=...)`` constructor over ragcore's.

It *is* ragcore's ``Document`` (a subclass that only translates the constructor): ``id_`` is
LlamaIndex's name for ``doc_id`` (either may be given, and both read and set the same id), and
the keywords LlamaIndex uses to format metadata differently are refused with ragcore's way.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigError
from ..types import Document as _Document
from .refusals import refuse

_HINTS = {
    "metadata_seperator": "ragcore writes metadata as one 'key: value' line each",
    "metadata_separator": "ragcore writes metadata as one 'key: value' line each",
    "metadata_template": "ragcore writes metadata as one 'key: value' line each",
    "text_template": "ragcore puts the metadata lines, a blank line, then the text",
    "embedding": "embeddings live in the index's store, not on documents: index the document",
    "relationships": "ragcore's documents have no relationships; nodes have prev/next/parent",
    "extra_info": "extra_info is LlamaIndex's old name: pass metadata=",
}


class Document(_Document):
    """ragcore's ``Document`` made with LlamaIndex's keywords (``id_`` for ``doc_id``)."""

    __slots__ = ()

    def __init__(
        self,
        text: str = "",
        *,
        id_: str | None = None,
        doc_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        excluded_embed_metadata_keys: list[str] | None = None,
        excluded_llm_metadata_keys: list[str] | None = None,
        **unsupported: Any,
    ) -> None:
        refuse("Document", unsupported, _HINTS)
        if id_ is not None and doc_id is not None and id_ != doc_id:
            raise ConfigError(f"Document got id_={id_!r} and doc_id={doc_id!r}: they name the "
                              "same id, give one")
        given = {"excluded_embed_metadata_keys": excluded_embed_metadata_keys,
                 "excluded_llm_metadata_keys": excluded_llm_metadata_keys}
        options = {k: list(v) for k, v in given.items() if v is not None}
        if id_ is not None or doc_id is not None:
            options["doc_id"] = id_ if id_ is not None else doc_id
        super().__init__(text=text, metadata=dict(metadata or {}), **options)

    @property
    def id_(self) -> str:
        """LlamaIndex's name for ``doc_id`` (settable, as there)."""
        return self.doc_id

    @id_.setter
    def id_(self, value: str) -> None:
        self.doc_id = value


__all__ = ["Document"]
