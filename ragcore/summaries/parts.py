"""A fresh summary by the model, part by part: each part's summary streams as it is written.

``summarize_nodes`` (``index``) hands every chunk to tree_summarize and says nothing until the
last call ends: on the packaged model, a paper is tens of minutes of silence. Here a document
is cut into at most ``MAX_PARTS`` consecutive parts (``plan_parts``); the model reads, of each,
its most central passages up to ``PART_TOKENS`` (all of a short part) and writes one paragraph
of at most ``MAX_SENTENCES`` sentences on it (its reply is closed there). The reply is the
parts' summaries in document order, each under a heading that says where it is ("Part 2 of 6 ·
pages 5-11"), yielded before the model reads the part: the first words come at once, and how
far it has read is in the text. ``write_parts`` is the
one driver; it calls the model once per part, lazily, so closing it (Stop) between or inside
parts runs none of the remaining calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np

from ..llms.base import LLM, stopping_at
from ..prompts.answer import PART_SUMMARY
from ..types import Message, Node
from .summarize import central_order, centroid_of

MAX_PARTS = 6
# Passage tokens the model reads per part: about 6 s for the packaged model on two idle cores
# (70 tokens a second), so a Stop while it reads leaves it that little to finish.
PART_TOKENS = 420
TOKENS_PER_WORD = 1.35  # English prose: an estimate, so planning needs no tokenizer
# Where a part's summary ends: the 1.5B model, asked for two or three sentences, went on to copy
# the passages for 200 tokens after its first paragraph.
PARAGRAPH_END = "\n\n"
MAX_SENTENCES = 3  # and at most this many sentences: the model's reply is closed after them
_SENTENCE_END = re.compile(r"[.!?][\"”’)\]]*\s+(?=[A-Z0-9“\"(])")
READ_NOTE = "summary_read"  # in a reply's trace notes: how far a summary being written has read


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a document: where it is (``where``), the passages the model reads of it."""

    number: int
    of: int
    where: str
    texts: tuple[str, ...]
    passages: int  # passages in the part; ``texts`` are the ones read

    @property
    def words(self) -> int:
        return sum(len(t.split()) for t in self.texts)

    @property
    def heading(self) -> str:
        return f"Part {self.number} of {self.of} · {self.where}"


def plan_parts(nodes: Sequence[Node], vectors: np.ndarray, *, max_parts: int = MAX_PARTS,
               part_tokens: int = PART_TOKENS) -> list[Part]:
    """The parts of a document (``nodes`` in order, ``vectors`` their rows) and what is read."""
    if not nodes:
        return []
    tokens = [len(n.text.split()) * TOKENS_PER_WORD for n in nodes]
    count = max(1, min(max_parts, len(nodes), round(sum(tokens) / part_tokens + 0.5)))
    spans = _even_spans(tokens, count)
    vectors = np.asarray(vectors, dtype=np.float32)
    parts = []
    for number, (start, end) in enumerate(spans, 1):
        rows = _read_rows(tokens[start:end], vectors[start:end], part_tokens)
        parts.append(Part(number, len(spans), _where(nodes, start, end, len(nodes)),
                          tuple(nodes[start + i].text for i in rows), end - start))
    return parts


def _even_spans(tokens: Sequence[float], count: int) -> list[tuple[int, int]]:
    """``count`` consecutive (start, end) spans of about equal tokens, none empty."""
    share, spans, start, running = sum(tokens) / count, [], 0, 0.0
    for i, size in enumerate(tokens):
        running += size
        left_nodes, left_spans = len(tokens) - i - 1, count - len(spans) - 1
        if left_spans and (running >= share * (len(spans) + 1) or left_nodes == left_spans):
            spans.append((start, i + 1))
            start = i + 1
    spans.append((start, len(tokens)))
    return spans


def _read_rows(tokens: Sequence[float], vectors: np.ndarray, budget: int) -> list[int]:
    """The rows of a part the model reads: all if they fit, else the most central that do
    (the first always), in document order."""
    if sum(tokens) <= budget:
        return list(range(len(tokens)))
    order = central_order(vectors, centroid_of(vectors), limit=len(tokens))
    chosen, used = [], 0.0
    for row in order:
        if not chosen or used + tokens[row] <= budget:
            chosen.append(row)
            used += tokens[row]
    return sorted(chosen)


def _where(nodes: Sequence[Node], start: int, end: int, total: int) -> str:
    first, last = (nodes[i].metadata.get("page_label") for i in (start, end - 1))
    if first and last:
        return f"page {first}" if first == last else f"pages {first}-{last}"
    return f"passages {start + 1}-{end} of {total}"


def part_prompt(part: Part, title: str) -> list[Message]:
    """The messages that ask for ``part``'s summary."""
    return PART_SUMMARY.format(title=title, part=part.heading.lower(),
                               context="\n\n".join(part.texts))


def write_parts(llm: LLM, parts: Sequence[Part], title: str, *,
                read: dict[str, Any]) -> Iterator[str]:
    """The summary's text as it is written: each part's heading, then the model's words on it;
    ``read`` (a trace note) is kept up to date with the part being read and the words read."""
    read.update(part=0, parts=len(parts), words=sum(p.words for p in parts), words_read=0,
                passages=sum(p.passages for p in parts),
                passages_read=sum(len(p.texts) for p in parts))
    writer = stopping_at(llm, [PARAGRAPH_END])  # a part's summary is one paragraph
    for part in parts:
        read.update(part=part.number, where=part.where)
        yield f"{chr(10) * 2 if part.number > 1 else ''}**{part.heading}**\n\n"
        yield from first_sentences(writer.stream(part_prompt(part, title)), MAX_SENTENCES)
        read["words_read"] += part.words
    read["part"] = len(parts) + 1  # done


def first_sentences(chunks: Iterator[str], limit: int) -> Iterator[str]:
    """``chunks`` up to the end of their ``limit``-th sentence; the rest is never written
    (``chunks`` is closed: the model stops)."""
    text = ""
    try:
        for chunk in chunks:
            start, text = len(text), text + chunk
            ends = list(_SENTENCE_END.finditer(text))
            if len(ends) >= limit:
                cut = len(text[: ends[limit - 1].end()].rstrip())
                if cut > start:
                    yield text[start:cut]
                return
            yield chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def reading_line(read: dict[str, Any]) -> str:
    """How far a summary being written has read: "Reading part 2 of 6 (pages 5-11): 420 of
    2,400 words read so far"."""
    if not read or not read.get("parts"):
        return "Planning the summary…"
    part, parts = read["part"], read["parts"]
    if part > parts:
        return f"Read all {parts} parts ({read['words']:,} words)."
    return (f"Reading part {part} of {parts} ({read.get('where', '')}): "
            f"{read['words_read']:,} of {read['words']:,} words read so far.")
