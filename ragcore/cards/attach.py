"""``attach_card``: give every document of a file the card made from the file's head.

A file read in parts (PDF pages, slides, chapters, parts of a big text) is one document to its
reader, so its card is made once, from the head of the first parts (their text up to
``HEAD_CHARS``: a NIST publication's abstract is on its fourth page) and the first part's
metadata (where a PDF's document info is), and every part carries it. The card's keys are
kept out of the embedded text and the LLM's metadata header, so chunk borders, vectors and
prompts stay as they were; a document's content hash does change (its metadata did), so a
file indexed before cards is re-indexed once when it is next ingested, and gets its card.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Iterable, Iterator

from ..types import Document
from .card import CARD_KEYS, card_metadata
from .extract import HEAD_CHARS, card_of

HEAD_PARTS = 8
# Files of records, not documents: a title found in the first row would be no file's title.
RECORD_TYPES = frozenset(("application/jsonl", "text/csv", "text/tab-separated-values"))


def attach_card(documents: Iterable[Document]) -> Iterator[Document]:
    """``documents`` (the parts of one file, in order) as they come, each with the file's
    card in its metadata (changed in place; none when the card is empty). The first parts
    are held until the head is read, the rest pass straight through."""
    parts = iter(documents)
    head: list[Document] = []
    chars = 0
    for document in parts:
        head.append(document)
        chars += len(document.text)
        if chars >= HEAD_CHARS or len(head) == HEAD_PARTS:
            break
    if not head:
        return
    found = _card_of_head(head)
    for document in chain(head, parts):
        if found:
            _add(document, found)
        yield document


def _card_of_head(head: list[Document]) -> dict[str, Any]:
    metadata = head[0].metadata
    if metadata.get("file_type") in RECORD_TYPES:
        return {}
    text = "\n\n".join(d.text[:HEAD_CHARS] for d in head)
    return card_metadata(card_of(text, metadata))


def _add(document: Document, found: dict[str, Any]) -> None:
    document.metadata.update({k: list(v) if isinstance(v, list) else v for k, v in found.items()})
    for excluded in (document.excluded_embed_metadata_keys,
                     document.excluded_llm_metadata_keys):
        excluded.extend(key for key in CARD_KEYS if key not in excluded)
