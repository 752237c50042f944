"""What ingest keeps for "summarise X": the document's own abstract, or a summary made earlier.

A summary written by the model on request reads the whole document: minutes on a CPU. What a
person asks "summarise X" for is usually there already: a paper's or a report's abstract (its
card, ``cards``) or a summary the model wrote before (``workspace.summaries`` keeps it). This
module finds them and says what each is, so the reply comes at once and is never taken for
something it is not: an abstract is quoted as the document's own words, a stored summary says
which model wrote it and when.

The card that rides on every node keeps only the abstract's opening (``card.ABSTRACT_CHARS``);
the whole abstract is read again here from the document's head, rebuilt from its nodes (a node
is ``document.text[start_char:end_char]``), the way ingest found it.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..cards.card import card_from_metadata
from ..cards.extract import HEAD_CHARS, card_of
from .index import DocumentSummary

ABSTRACT_NOTE = ("The document's own abstract, quoted as it is printed in the document: no "
                 "model wrote or changed it.")
HEAD_DOCUMENTS = 8  # a PDF's first pages: where its abstract is (``cards.attach.HEAD_PARTS``)


def document_text(nodes: Sequence[Any]) -> str:
    """A document's text rebuilt from its nodes (overlaps read once; a node without offsets
    is added whole)."""
    text = ""
    for node in sorted(nodes, key=lambda n: n.start_char or 0):
        start, end = node.start_char, node.end_char
        if start is None or end is None:
            text += ("\n" if text else "") + node.text
        elif end > len(text):
            text += node.text[len(text) - start:] if start <= len(text) else (
                " " * (start - len(text)) + node.text)
    return text


def file_abstract(index: Any, doc_ids: Sequence[str]) -> str:
    """The whole abstract of a file (its documents ``doc_ids``), "" when its card has none."""
    if not doc_ids:
        return ""
    first = index.doc_info(doc_ids[0])
    metadata = dict(first.metadata) if first is not None else {}
    card = card_from_metadata(metadata)
    if card is None or not card.abstract:
        return ""  # ingest found none: reading the head again would find none either
    head, size = [], 0
    for doc_id in doc_ids[:HEAD_DOCUMENTS]:
        head.append(document_text(index.nodes_for_doc(doc_id))[:HEAD_CHARS])
        size += len(head[-1])
        if size >= HEAD_CHARS:
            break
    found = card_of("\n\n".join(head), metadata).abstract
    # The rebuilt head gives the same abstract ingest found, whole; if it does not (the file's
    # head changed how it reads), the card's opening is still the document's own words.
    return found if found.startswith(card.abstract[:40].rstrip(" …")) else card.abstract


def abstract_reply(title: str, abstract: str) -> str:
    """The abstract as a reply: quoted, said to be the document's own."""
    quoted = "\n".join(f"> {line}" if line else ">" for line in abstract.splitlines())
    return (f"**The abstract of {title}**, in the document's own words:\n\n{quoted}\n\n"
            f"_{ABSTRACT_NOTE}_")


def stored_reply(summary: DocumentSummary, *, written_by: str) -> str:
    """A summary the model wrote earlier, said to be so and when (``written_by``: "the
    packaged model qwen2.5 …")."""
    when = f" on {summary.made}" if summary.made else " earlier"
    return (f"**A summary of {summary.title}** written by {written_by}{when}:\n\n"
            f"{summary.text.strip()}\n\n_Written by {written_by}{when}, from the document "
            "as it is indexed now; not checked against the document sentence by sentence._")
