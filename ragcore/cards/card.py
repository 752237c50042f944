"""The document card: what a document says about itself, and how it rides on its metadata.

A ``DocumentCard`` holds the title, authors, date, kind (its series and number, e.g. "NIST
Special Publication 800-218") and abstract found at the head of a document (``extract``).
Every field is what the document printed or declared, never a guess, so most cards are partly
empty. On its way into an index the card becomes metadata keys (``card_metadata``) that every
node of the document copies; ``card_from_metadata`` reads it back from any node, and
``card_text`` writes it as the plain sentences a reader model is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

TITLE, AUTHORS, DATE, KIND, ABSTRACT, RELATIONS = (
    "card_title", "card_authors", "card_date", "card_kind", "card_abstract", "card_relations",
)
# The metadata keys of a card. Kept out of the embedded text and the LLM's metadata header
# (``attach``): the card reaches the LLM only as its own passage, so chunks, vectors and token
# budgets stay as they were.
CARD_KEYS = (TITLE, AUTHORS, DATE, KIND, ABSTRACT, RELATIONS)
# Every node of a document copies its metadata, so the abstract kept there is its opening:
# enough to say what the document is about without repeating a page in every node.
ABSTRACT_CHARS = 300


@dataclass(frozen=True, slots=True)
class DocumentCard:
    """A document's title, authors, date, kind and abstract, as the document gives them, and
    its ``relations`` to others ("obsoletes RFC 2068", "has the status Active": ``relations``)."""

    title: str = ""
    authors: tuple[str, ...] = ()
    date: str = ""
    abstract: str = ""
    kind: str = ""
    relations: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "authors", tuple(self.authors))
        object.__setattr__(self, "relations", tuple(self.relations))

    def __bool__(self) -> bool:
        return bool(self.title or self.authors or self.date or self.abstract or self.kind
                    or self.relations)


def card_metadata(card: DocumentCard) -> dict[str, Any]:
    """The card as metadata: one key per field found (none for an empty card)."""
    found: dict[str, Any] = {}
    if card.title:
        found[TITLE] = card.title
    if card.authors:
        found[AUTHORS] = list(card.authors)
    if card.date:
        found[DATE] = card.date
    if card.kind:
        found[KIND] = card.kind
    if card.abstract:
        found[ABSTRACT] = opening(card.abstract, ABSTRACT_CHARS)
    if card.relations:
        found[RELATIONS] = list(card.relations)
    return found


def card_from_metadata(metadata: Mapping[str, Any]) -> DocumentCard | None:
    """The card a node's metadata carries, or None (a node indexed before cards, or of a
    document where none was found)."""
    authors, relations = (_strings(metadata.get(key)) for key in (AUTHORS, RELATIONS))
    card = DocumentCard(
        title=str(metadata.get(TITLE) or ""),
        authors=authors,
        date=str(metadata.get(DATE) or ""),
        abstract=str(metadata.get(ABSTRACT) or ""),
        kind=str(metadata.get(KIND) or ""),
        relations=relations,
    )
    return card or None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):  # a store that keeps only scalars
        return (value,)
    return tuple(str(v) for v in value or ())


def card_text(card: DocumentCard) -> str:
    """The card as plain sentences, one field a line, only the fields found.

    Each line names the document (its kind, else "this document") and says what the field
    answers ("who wrote", "when it was published"), so the line a question asks for shares
    its words. On 22 questions about six corpus documents (extractive answerer, fake
    embedder) the answer led with the asked author, date or title 22 times; 8 with bare
    "Authors: ..." lines, 1 without cards."""
    name = card.kind or "this document"
    lines = []
    if card.title:
        lines.append(f"Title of {name}: {_sentence(card.title)}")
    if card.authors:
        label = "Author" if len(card.authors) == 1 else "Authors"
        lines.append(f"{label} who wrote {name}: {_sentence(join_names(card.authors))}")
    if card.date:
        lines.append(f"Date of {name}, when it was published: {_sentence(card.date)}")
    if card.abstract:
        lines.append(f"Abstract of {name}, what it is about: {card.abstract}")
    lines += [_sentence(f"{name[0].upper()}{name[1:]} {clause}") for clause in card.relations]
    return "\n".join(lines)


def join_names(names: tuple[str, ...] | list[str]) -> str:
    """"A", "A and B", "A, B and C"."""
    if len(names) < 3:
        return " and ".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def opening(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters: at the last sentence end past half of it,
    else at a word, marked with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
    if end > limit // 2:
        return head[: end + 1]
    space = head.rfind(" ")
    return (head[:space] if space > 0 else head).rstrip(",;:") + " …"


def _sentence(text: str) -> str:
    return text if text.endswith((".", "?", "!")) else f"{text}."
