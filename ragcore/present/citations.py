"""Show where an answer came from: a source passage in its surrounding text, cited parts marked.

A retrieved chunk is shown between the end of the chunk before it and the start of the chunk
after it (found through the node's prev/next links and exact character offsets), and the
sentences of the chunk that the answer used are marked. The result is a list of text segments;
``segments_to_html`` escapes every character of document text, so a document can never inject
markup into the page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Callable, Literal

from ..types import Node

SegmentKind = Literal["context", "passage", "cited"]
NodeLookup = Callable[[str], "Node | None"]

_WORD = re.compile(r"\w+")
# A sentence ends at . ! ? (plus closing quotes/brackets) before whitespace, or at a line break.
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s)|\n")
_MIN_WORD_LENGTH = 3


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text: surrounding ``context``, the retrieved ``passage``, or ``cited`` text."""

    text: str
    kind: SegmentKind


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the sentences of ``text``, whitespace trimmed, in order."""
    spans: list[tuple[int, int]] = []
    start = 0
    ends = [m.end() for m in _BOUNDARY.finditer(text)] + [len(text)]
    for end in ends:
        piece = text[start:end]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            spans.append((start + lead, start + lead + len(stripped)))
        start = end
    return spans


def cited_spans(passage: str, answer: str, *, min_overlap: float = 0.6) -> list[tuple[int, int]]:
    """Spans of the sentences of ``passage`` that ``answer`` quotes or closely paraphrases.

    A sentence counts as cited when it appears verbatim in the answer (ignoring spacing and
    case), or when at least ``min_overlap`` of its words (3+ letters, at least three of them)
    occur in the answer.
    """
    if not 0.0 < min_overlap <= 1.0:
        raise ValueError(f"min_overlap ({min_overlap}) must be in (0, 1]")
    answer_flat = _flatten(answer)
    answer_words = set(_words(answer))
    cited = []
    for start, end in sentence_spans(passage):
        sentence = passage[start:end]
        words = _words(sentence)
        if len(words) >= 3 and _flatten(sentence) in answer_flat:
            cited.append((start, end))
        elif len(words) >= 3:
            shared = sum(1 for w in words if w in answer_words)
            if shared / len(words) >= min_overlap:
                cited.append((start, end))
    return cited


def surrounding_text(node: Node, lookup: NodeLookup, *, chars: int = 240) -> tuple[str, str]:
    """Up to ``chars`` characters of document text before and after ``node``.

    Uses the previous/next chunks; their overlap with ``node`` is cut away by character offset
    when both chunks carry offsets into the same document.
    """
    if chars < 0:
        raise ValueError(f"chars ({chars}) must not be negative")
    before = after = ""
    prev = lookup(node.prev_id) if node.prev_id else None
    if prev is not None:
        before = _tail(_text_before(prev, node), chars)
    nxt = lookup(node.next_id) if node.next_id else None
    if nxt is not None:
        after = _head(_text_after(nxt, node), chars)
    return before, after


def passage_segments(
    node: Node, answer: str, *, lookup: NodeLookup | None = None, chars: int = 240
) -> list[Segment]:
    """The passage of ``node`` in its surrounding text, with the sentences ``answer`` cites."""
    before, after = surrounding_text(node, lookup, chars=chars) if lookup else ("", "")
    segments: list[Segment] = []
    if before:
        segments.append(Segment(before if before[-1].isspace() else before + " ", "context"))
    position = 0
    for start, end in cited_spans(node.text, answer):
        if start > position:
            segments.append(Segment(node.text[position:start], "passage"))
        segments.append(Segment(node.text[start:end], "cited"))
        position = end
    if position < len(node.text):
        segments.append(Segment(node.text[position:], "passage"))
    if after:
        segments.append(Segment(after if after[0].isspace() else " " + after, "context"))
    return segments


_STYLES = {
    "context": "color:#718096;",
    "passage": "background:#EBF4FF;",
    "cited": "background:#FEEBC8;font-weight:600;",
}


def segments_to_html(segments: list[Segment]) -> str:
    """Render segments as one HTML block; every character of text is escaped."""
    parts = []
    for segment in segments:
        style = _STYLES[segment.kind]
        tag = "mark" if segment.kind == "cited" else "span"
        parts.append(f'<{tag} style="{style}">{html.escape(segment.text)}</{tag}>')
    body = "".join(parts)
    return (
        '<div style="white-space:pre-wrap;line-height:1.5;font-size:0.92rem;'
        'border-left:3px solid #2B6CB0;padding:0.4rem 0.8rem;">'
        f"{body}</div>"
    )


def _text_before(prev: Node, node: Node) -> str:
    if _same_doc_offsets(prev, node):
        return prev.text[: max(0, node.start_char - prev.start_char)]
    return prev.text


def _text_after(nxt: Node, node: Node) -> str:
    if _same_doc_offsets(nxt, node):
        return nxt.text[max(0, node.end_char - nxt.start_char) :]
    return nxt.text


def _same_doc_offsets(other: Node, node: Node) -> bool:
    return (
        other.ref_doc_id == node.ref_doc_id
        and other.start_char is not None
        and node.start_char is not None
        and node.end_char is not None
    )


def _tail(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    cut = text[len(text) - chars :]
    space = cut.find(" ")
    return "… " + (cut[space + 1 :] if 0 <= space < len(cut) - 1 else cut)


def _head(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    cut = text[:chars]
    space = cut.rfind(" ")
    return (cut[:space] if space > 0 else cut) + " …"


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) >= _MIN_WORD_LENGTH]


def _flatten(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))
