"""Extractive summaries: the central, non-redundant sentences of a text, in document order.

The offline answer to "summarise this document" (or a whole index) when no language model is
configured. The text arrives as chunks with their stored vectors (the index already embedded
them); the document's centroid is the normalised mean of those vectors. Which sentences may
stand in a summary and what the document's main sections are is ``llms.extractive_summary``'s
call (body prose only: no table rows, references, headings or front matter). A long document
with sections gets a line per main section: the sentence nearest both its section's centroid
and the whole text's, read from the ``SECTION_POOL`` chunks nearest each section's centroid.
A text without sections is first narrowed to ``CHUNK_POOL`` chunks picked by maximal marginal
relevance against the centroid, so the work stays bounded however long it is; its sentences
are picked again by MMR: central (close to the centroid) but unlike the ones already picked.
The picks are shown in the order they appear in the document, within ``max_chars`` characters.

Unlike the extractive answerer (``llms.extractive``), which ranks sentences by a question,
nothing here depends on a question: centrality replaces relevance.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from ..embeddings.base import Embedder, embed_texts, normalize
from ..errors import ConfigError
from ..search.lexical import split_sentences
from ..llms.extractive.summary import OTHER, Outline, Sentence, outline, pick
from ..llms.extractive.text import candidates
from ..search.mmr import mmr_select

CHUNK_POOL = 24  # chunks whose sentences are read when a document has more
SECTION_POOL = 3  # chunks read for each main section of a long document
REDUNDANCY = 0.3  # weight of "unlike the picks so far" against centrality (1 - MMR lambda)
SEPARATOR = " — "  # between a sentence without a full stop and the next
_SPACES = re.compile(r"\s+")
_ROLE = re.compile(r":(\w+):`([^`<]+?)(?:\s*<[^>]*>)?`")  # reST :pep:`257`, :ref:`text <x>`
_FOOTNOTE_REF = re.compile(r"\s*\[(?:#[\w-]*|\d+|\*)\]_")  # reST [#fn-hi]_, [1]_
_DOUBLE_TICKS = re.compile(r"``([^`]+)``")
_ENDED = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")


@dataclass(frozen=True, slots=True)
class SummarySentence:
    """A picked sentence and where it came from (the chunk's position among the inputs)."""

    text: str
    chunk: int
    centrality: float


@dataclass(frozen=True, slots=True)
class ExtractiveSummary:
    """Picked sentences in document order, with how much text they were chosen from."""

    sentences: tuple[SummarySentence, ...]
    chunks_read: int
    sentences_considered: int
    by_section: bool = False  # picked from the main sections of a long document

    @property
    def markdown(self) -> str:
        """A line per pick as a Markdown list when they come from several sections, else
        ``text``."""
        if not self.by_section or len(self.sentences) < 2:
            return self.text
        return "\n".join(f"- {sentence.text}" for sentence in self.sentences)

    @property
    def text(self) -> str:
        """The sentences in a row; one without a full stop (a slide's title, a heading) is set
        off by a dash, so "Quarterly review" and the next sentence do not read as one."""
        parts = []
        for sentence in self.sentences:
            if parts:
                parts.append(" " if _ENDED.search(parts[-1]) else SEPARATOR)
            parts.append(sentence.text)
        return "".join(parts)


def _dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    return matrix @ vector


def central_order(vectors: np.ndarray, centroid: np.ndarray, *, limit: int) -> list[int]:
    """Rows of ``vectors`` (normalised) in MMR order of centrality, at most ``limit``."""
    relevance = vectors @ centroid
    return mmr_select(vectors, relevance, top_k=limit, lam=1.0 - REDUNDANCY, similarity=_dot)


def centroid_of(vectors: np.ndarray) -> np.ndarray:
    """The normalised mean of normalised rows: the direction the whole text points in."""
    return normalize(np.asarray(vectors, dtype=np.float32).mean(axis=0, keepdims=True))[0]


def summarize_extractive(
    texts: Sequence[str],
    embedder: Embedder,
    *,
    vectors: np.ndarray | None = None,
    max_sentences: int = 6,
    max_chars: int = 1200,
) -> ExtractiveSummary:
    """The central sentences of ``texts`` (chunks in document order), at most ``max_chars``.

    ``vectors`` are the chunks' stored embeddings (rows in the order of ``texts``); without
    them the chunks are embedded here.
    """
    if max_sentences < 1 or max_chars < 40:
        raise ConfigError(
            f"max_sentences ({max_sentences}) must be at least 1 and max_chars ({max_chars}) "
            "at least 40"
        )
    if not texts:
        return ExtractiveSummary((), 0, 0)
    vectors = embed_texts(embedder, list(texts)) if vectors is None else normalize(vectors)
    if vectors.shape[0] != len(texts):
        raise ConfigError(f"{vectors.shape[0]} vectors were given for {len(texts)} chunks")
    centroid = centroid_of(vectors)
    whole = outline([candidates(text) for text in texts])
    pool = _chunk_pool(whole, vectors, centroid, max_sentences)
    found = _within_chunks(whole, pool) if whole.sentences else _plain(texts, pool)
    if not found.sentences:
        return ExtractiveSummary((), len(pool), 0)
    shown = [tidy(s.text) for s in found.sentences]
    sentence_vectors = normalize(embed_texts(embedder, shown))
    centrality = sentence_vectors @ centroid
    picks = _picks(found, sentence_vectors, vectors, centroid, max_sentences)
    kept = _within(picks, shown, max_chars - len("- "))  # room for the Markdown list's mark
    chosen = tuple(SummarySentence(text, found.sentences[i].chunk, float(centrality[i]))
                   for i, text in sorted(kept))
    sections = {found.sentences[i].section for i, _ in kept}
    return ExtractiveSummary(chosen, len(pool), len(found.sentences),
                             by_section=len(sections) > 1)


def _chunk_pool(whole: Outline, vectors: np.ndarray, centroid: np.ndarray, wanted: int
                ) -> list[int]:
    """The chunks whose sentences are read: with sections, the ``SECTION_POOL`` chunks nearest
    each of the largest sections' centroid (and the abstract's); else the most central."""
    chunks = _section_chunks(whole)
    if len(chunks) < 2:
        return sorted(central_order(vectors, centroid, limit=CHUNK_POOL))
    sizes = Counter(s.section for s in whole.sentences if s.body)
    chosen = sorted(chunks, key=lambda k: (k != whole.first, -sizes[k], k))[:wanted]
    pool: set[int] = set()
    for section in chosen:
        rows = sorted(chunks[section])
        near = vectors[rows] @ centroid_of(vectors[rows])
        pool.update(rows[i] for i in np.argsort(-near)[:SECTION_POOL])
    return sorted(pool)


def _section_chunks(found: Outline) -> dict[int, set[int]]:
    chunks: dict[int, set[int]] = {}
    for sentence in found.sentences:
        chunks.setdefault(sentence.section, set()).add(sentence.chunk)
    return chunks


def _within_chunks(whole: Outline, pool: list[int]) -> Outline:
    """The outline's sentences that come from the chunks of ``pool``."""
    keep = set(pool)
    return replace(whole, sentences=tuple(s for s in whole.sentences if s.chunk in keep))


def _plain(texts: Sequence[str], pool: list[int]) -> Outline:
    """A text with no quotable sentence (a slide of short lines): its plain sentences."""
    seen: set[str] = set()
    found = []
    for number in pool:
        for text in split_sentences(texts[number]):
            if text.lower() not in seen:
                seen.add(text.lower())
                found.append(Sentence(text, number, 0, OTHER))
    return Outline(tuple(found), ("",))


def _picks(found: Outline, sentence_vectors: np.ndarray, vectors: np.ndarray,
           centroid: np.ndarray, wanted: int) -> list[int]:
    """The sentences to quote, best first: a line per main section when the text has several
    (near its section's centroid and the whole text's), else central ones unlike each other."""
    chunks = _section_chunks(found)
    if len(chunks) < 2:
        body = [i for i, s in enumerate(found.sentences) if s.body]
        rows = body if len(body) >= wanted else list(range(len(found.sentences)))
        order = central_order(sentence_vectors[rows], centroid, limit=wanted)
        return [rows[i] for i in order]
    section_centroids = {k: centroid_of(vectors[sorted(rows)]) for k, rows in chunks.items()}
    scores = [float(sentence_vectors[i] @ (section_centroids[s.section] + centroid))
              for i, s in enumerate(found.sentences)]
    return pick(found, scores, limit=wanted)


def tidy(sentence: str) -> str:
    """A sentence as a person reads it: reST roles and footnote marks become plain text."""
    text = _ROLE.sub(lambda m: f"PEP {m.group(2)}" if m.group(1) == "pep" else m.group(2),
                     sentence)
    text = _DOUBLE_TICKS.sub(r"`\1`", _FOOTNOTE_REF.sub("", text))
    return _SPACES.sub(" ", text).strip()


def _within(picks: list[int], texts: list[str], max_chars: int) -> list[tuple[int, str]]:
    """(position, text) of the picks, best first, that fit ``max_chars`` together; the best
    one is always kept, cut to fit if it must be."""
    kept: list[tuple[int, str]] = []
    used = 0
    for i in picks:
        length = len(texts[i]) + (len(SEPARATOR) if kept else 0)  # the longest gap
        if used + length <= max_chars:
            kept.append((i, texts[i]))
            used += length
    if not kept and picks:
        kept.append((picks[0], _cut(texts[picks[0]], max_chars)))
    return kept


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit - 1)
    return text[: space if space > 0 else limit - 1].rstrip() + "…"
