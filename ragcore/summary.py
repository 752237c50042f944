"""Extractive summaries: the central, non-redundant sentences of a text, in document order.

The offline answer to "summarise this document" (or a whole index) when no language model is
configured. The text arrives as chunks with their stored vectors (the index already embedded
them); the document's centroid is the normalised mean of those vectors. A long document is first
narrowed to ``CHUNK_POOL`` chunks picked by maximal marginal relevance against the centroid, so
the work stays bounded however long it is. The quotable sentences of those chunks (headings,
code and table rows left out by ``llms.extractive_text``) are embedded with the same model and
picked again by MMR: central (close to the centroid) but unlike the sentences already picked.
The picks are shown in the order they appear in the document, within ``max_chars`` characters.

Unlike the extractive answerer (``llms.extractive``), which ranks sentences by a question,
nothing here depends on a question: centrality replaces relevance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .embeddings.base import Embedder, embed_texts, normalize
from .errors import ConfigError
from .lexical import split_sentences
from .llms.extractive_text import candidates
from .mmr import mmr_select

CHUNK_POOL = 24  # chunks whose sentences are read when a document has more
REDUNDANCY = 0.3  # weight of "unlike the picks so far" against centrality (1 - MMR lambda)
MIN_WORDS = 6  # shorter sentences say too little to stand in a summary
SEPARATOR = " — "  # between a sentence without a full stop and the next
_SPACES = re.compile(r"\s+")
_FIELD = re.compile(r"(?:^|\s)[A-Z][\w-]*:\s")  # "Title: ", "Author: " in a header block
_CONTINUES = re.compile(r"^(?:And|But|So|Or|Yet|Also|Then|Still)\b")  # leans on the one before
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
    pool = sorted(central_order(vectors, centroid, limit=CHUNK_POOL))
    found = _readable(_sentences([texts[i] for i in pool]), max_sentences)
    if not found:
        return ExtractiveSummary((), len(pool), 0)
    sentence_vectors = normalize(embed_texts(embedder, [text for _, text in found]))
    picks = central_order(sentence_vectors, centroid, limit=max_sentences)
    centrality = sentence_vectors @ centroid
    kept = _within(picks, [text for _, text in found], max_chars)
    chosen = tuple(
        SummarySentence(text, pool[found[i][0]], float(centrality[i])) for i, text in sorted(kept)
    )
    return ExtractiveSummary(chosen, len(pool), len(found))


def _sentences(chunks: Sequence[str]) -> list[tuple[int, str]]:
    """(chunk position, sentence) for each distinct quotable sentence, in order.

    Chunks overlap, so a sentence met again in the next chunk is read once. When a chunk has
    nothing quotable (a slide of short lines), its plain sentences stand in. A sentence that
    leans on the one before ("This plan is then deployed ...") cannot stand alone.
    """
    seen: set[str] = set()
    found: list[tuple[int, str]] = []
    for number, chunk in enumerate(chunks):
        found_here = candidates(chunk)
        texts = [c.text for c in found_here if not c.starts_with_reference] if found_here \
            else split_sentences(chunk)
        for text in texts:
            key = _SPACES.sub(" ", text).strip().lower()
            if key and key not in seen:
                seen.add(key)
                found.append((number, tidy(text)))
    return found


def _readable(found: list[tuple[int, str]], wanted: int) -> list[tuple[int, str]]:
    """Whole sentences worth reading alone, when there are enough of them to choose from.

    A PDF line cut mid-sentence, a header block ("PEP: 8 Title: ... Author: ..."), a sentence
    continuing the one before ("And ...", "But ...") or a fragment of a few words reads badly
    in a summary; they are kept only when a text has
    too few better sentences.
    """
    good = [
        (chunk, text) for chunk, text in found
        if _ENDED.search(text) and len(text.split()) >= MIN_WORDS
        and len(_FIELD.findall(text)) < 2 and not _CONTINUES.match(text)
    ]
    return good if len(good) >= wanted else found


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
