"""Document cards: what a document says about itself (title, authors, date, kind, abstract,
relations to other documents of its series).

LlamaIndex's metadata extractors ask an LLM for a title or a summary at ingest; a card is read
off the document instead (its header fields, its title page, its "Abstract", a PDF's document
info), at no cost and with nothing guessed. Questions about a document itself ("Who wrote this
paper?") are then answered from its card, not from sentences that happen to name people.

    card.py        DocumentCard, how it rides on metadata (card_metadata, card_from_metadata)
                   and the plain sentences it is shown as (card_text)
    extract.py     card_of(text, metadata): which source each field comes from
    fields.py      "Title:" / "Author:" / "Created:" header fields (PEPs, Gutenberg, reST)
    front_page.py  a title page's title lines and the names under them; an RFC's header
    abstract.py    the text under "Abstract"; a reST or Markdown heading as title
    relations.py   an RFC's or PEP's "Obsoletes:" / "Updates:" / "Superseded-By:" / status fields
    names.py       splitting author lists; a person's name told from a title or an organization
    dates.py       date lines, header-field dates, PDF dates
    attach.py      attach_card(documents): the file's card on each of its documents (readers
                   call it for every file they read)
    questions.py   asks_about_document(question): who wrote it, when, what it is

Pure functions of text, no I/O; ``ragcore.retrieval.cards.DocumentCards`` puts cards in front
of the retrieved passages.
"""

from __future__ import annotations

from .attach import attach_card
from .card import (
    CARD_KEYS, DocumentCard, card_from_metadata, card_metadata, card_text,
)
from .extract import card_of
from .questions import asks_about_document

__all__ = [
    "CARD_KEYS",
    "DocumentCard",
    "asks_about_document",
    "attach_card",
    "card_from_metadata",
    "card_metadata",
    "card_of",
    "card_text",
]
