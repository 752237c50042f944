"""The Part: what a file-type reader returns before it becomes a Document.

A reader only knows its format. It returns the text of each part of a file (the whole file, a PDF
page, a slide, a sheet, a chapter, a JSON Lines record) with the metadata that belongs to that
part and a suffix that makes the part's document id unique within the file: ``#page=N`` for the
N-th part of a file read in parts, ``#line=N`` for a JSON Lines record (the workspace strips
these two to find a document's file). ``ragcore.readers.files`` adds the file's own metadata
(path, name, size, dates) and the id base, so no reader repeats that work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True, frozen=True)
class Part:
    """The text of one part of a file, its own metadata, and its id suffix (e.g. ``#page=3``)."""

    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    id_suffix: str = ""
    # Keys of ``metadata`` to keep out of the embedded text and out of the LLM's view.
    excluded_embed_keys: tuple[str, ...] = ()
    excluded_llm_keys: tuple[str, ...] = ()
