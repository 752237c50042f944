"""Show where an answer came from: a source passage in its surrounding text, cited parts marked.

A retrieved chunk is shown between the end of the chunk before it and the start of the chunk
after it (found through the node's prev/next links and exact character offsets), and the spans
of the chunk that the answer used are marked, and inside them the short answer (an extractive
answer's bold phrase) is emphasised: which spans those are is decided in ``support.py`` (quotes,
supporting sentences, the short answer), never here. The result is a list of text segments;
``segments_to_html`` escapes every character of document text, so a document can never inject
markup into the page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

from ..retrieval.optimizer import CUT
from ..types import Node

SegmentKind = Literal["context", "passage", "cited", "answer"]
NodeLookup = Callable[[str], "Node | None"]


@dataclass(frozen=True, slots=True)
class Segment:
    """A run of text: surrounding ``context``, the retrieved ``passage``, ``cited`` text, or
    the short ``answer`` inside cited text."""

    text: str
    kind: SegmentKind


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
    node: Node,
    cited: Sequence[tuple[int, int]],
    *,
    answer: Sequence[tuple[int, int]] = (),
    lookup: NodeLookup | None = None,
    chars: int = 240,
    mark_cuts: bool = True,
) -> list[Segment]:
    """The passage of ``node`` in its surrounding text, its ``cited`` character spans marked
    and the ``answer`` spans inside them emphasised.

    ``cited`` are spans of ``node.text`` in order (``SourceUse.spans`` from ``support.cite``),
    ``answer`` likewise (``SourceUse.answer_spans``). Where the reading cut the passage
    (``retrieval.optimizer.CUT``) an "…" says so, between it and the text around it (unless
    ``mark_cuts`` is False: the caller shows the document's own text around it).
    """
    before, after = surrounding_text(node, lookup, chars=chars) if lookup else ("", "")
    cut = (node.metadata.get(CUT) or ()) if mark_cuts else ()  # what the reading left out
    segments: list[Segment] = []
    if before:
        segments.append(Segment(before + _between(before, node.text), "context"))
    if "start" in cut:
        segments.append(Segment("…" + _between("…", node.text), "context"))
    position = 0
    for start, end in sorted(cited):
        start, end = max(start, position), min(end, len(node.text))
        if end <= start:
            continue
        if start > position:
            segments.append(Segment(node.text[position:start], "passage"))
        segments += _cited_segments(node.text, start, end, answer)
        position = end
    if position < len(node.text):
        segments.append(Segment(node.text[position:], "passage"))
    if "end" in cut:
        segments.append(Segment(" …", "context"))
    if after:
        left = segments[-1].text if segments else ""
        segments.append(Segment(_between(left, after) + after, "context"))
    return segments


# Markup that holds only at a line's start: a code fence, a heading, a quote, a table row.
_OPENS_BLOCK = re.compile(r"(```|~~~|#{1,6}[ \t]|>|\|)")


def _between(left: str, right: str) -> str:
    """What goes between two runs of text this module puts side by side: the chunks were cut
    with the whitespace between them left out, so a run opening a block ("```rust", "> ####")
    starts a paragraph of its own (after a space it is text: its code shown as words, the
    words before it as code); any other run is apart by a space, unless one side has one."""
    if _OPENS_BLOCK.match(right) and not left.endswith("\n"):
        return "\n\n"
    return "" if left[-1:].isspace() or right[:1].isspace() else " "


def _cited_segments(text: str, start: int, end: int, answer: Sequence[tuple[int, int]]
                    ) -> list[Segment]:
    """``text[start:end]`` as cited text, the ``answer`` spans inside it as answer text."""
    pieces, position = [], start
    for a, b in sorted(answer):
        a, b = max(a, position), min(b, end)
        if b <= a:
            continue
        pieces += [Segment(text[position:a], "cited"), Segment(text[a:b], "answer")]
        position = b
    pieces.append(Segment(text[position:end], "cited"))
    return [p for p in pieces if p.text]


SEGMENT_STYLES = {
    "context": "color:#718096;",
    "passage": "background:#EBF4FF;",
    "cited": "background:#FEEBC8;font-weight:600;",
    "answer": "background:#F6AD55;font-weight:800;",
}
MARKED = ("cited", "answer")  # drawn as <mark>


def segments_to_html(segments: list[Segment]) -> str:
    """Render segments as one HTML block; every character of text is escaped."""
    parts = []
    for segment in segments:
        style = SEGMENT_STYLES[segment.kind]
        tag = "mark" if segment.kind in MARKED else "span"
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
