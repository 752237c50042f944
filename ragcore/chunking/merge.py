"""The chunking engine: cut a span into small pieces, then merge them into overlapping chunks.

Both steps follow LlamaIndex's ``SentenceSplitter._split`` and ``_merge``:

- split: a piece that fits the budget is kept whole; one that does not is cut at the first level
  (paragraphs, sentences, ...) that cuts it, and each sub-piece is handled the same way with the
  finer levels;
- merge: pieces are added to the current chunk while it fits; when the next piece does not fit,
  the chunk is closed and the next chunk starts with the last pieces of the closed one, as many
  as fit in ``overlap`` tokens.

It differs in how it does the work and in what it guarantees. Pieces are character spans
[start, end) of the original text, never copied strings, so chunk offsets are exact. Token
counts come from one ``TokenIndex`` of the whole text: piece estimates are vectorized binary
searches, and a growing chunk is re-estimated as one span in O(1) rather than re-encoded. Each
closed chunk, and its overlap with the previous chunk, is then checked exactly (as if encoded on
its own; ``TokenIndex.fits`` encodes at most its first and last word). If it is over after all,
the overlap is dropped first, then trailing pieces, then a single piece is cut at the longest
prefix that fits. So every chunk fits its budget and overlaps the previous chunk by at most
``overlap`` tokens, whatever the input. Each chunk starts and ends after the previous one
(LlamaIndex can repeat a whole chunk as overlap, and exceeds the budget when overlap plus a big
piece is more than ``chunk_size``). Chunks are stripped of surrounding whitespace;
whitespace-only chunks, and chunks adding nothing after the previous one, are not emitted.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np

from .boundaries import Level
from .token_index import TokenIndex

Span = tuple[int, int]


def chunk_spans(
    index: TokenIndex,
    start: int,
    end: int,
    *,
    levels: Sequence[Level],
    budget: int,
    overlap: int,
) -> list[Span]:
    """Chunks of ``index.text[start:end]`` as stripped (start, end) spans, in order."""
    pieces = _Pieces()
    if index.estimate(start, end) <= budget:
        pieces.add([end], [index.ended_before(start)], [index.before(end)])
    else:
        _split(index, start, end, 0, levels, budget, pieces)
    return _Merge(index, start, pieces, budget, overlap).run()


class _Pieces:
    """The pieces found by ``_split``: their ends, and for each the token counts that make its
    estimate (tokens ended before its start, tokens begun before its end)."""

    __slots__ = ("ends", "before_start", "before_end")

    def __init__(self) -> None:
        self.ends: list[int] = []
        self.before_start: list[int] = []
        self.before_end: list[int] = []

    def add(self, ends: list[int], before_start: list[int], before_end: list[int]) -> None:
        self.ends.extend(ends)
        self.before_start.extend(before_start)
        self.before_end.extend(before_end)


def _split(
    index: TokenIndex,
    start: int,
    end: int,
    level: int,
    levels: Sequence[Level],
    budget: int,
    out: _Pieces,
) -> None:
    """Add to ``out`` pieces partitioning [start, end), each estimated to fit ``budget``."""
    text = index.text
    cuts: list[int] = []
    while level < len(levels):
        cuts = levels[level].cuts(text, start, end, index)
        if cuts:
            break
        level += 1
    if not cuts:  # a single character: kept whole (one character is at most 4 tokens)
        out.add([end], [index.ended_before(start)], [index.before(end)])
        return
    starts = [start, *cuts]
    cuts.append(end)
    # Estimates of all pieces at once; only the few pieces over budget are visited one by one.
    before_end = index.before_each(cuts)
    before_start = index.ended_before_each(starts)
    over = np.flatnonzero(before_end - before_start > budget).tolist()
    before_end_list, before_start_list = before_end.tolist(), before_start.tolist()
    done = 0
    for i in [*over, len(cuts)]:
        out.add(cuts[done:i], before_start_list[done:i], before_end_list[done:i])
        if i < len(cuts):
            _split(index, starts[i], cuts[i], level + 1, levels, budget, out)
        done = i + 1


def _strip(text: str, start: int, end: int) -> Span:
    """The span of ``text[start:end]`` without its leading and trailing whitespace."""
    piece = text[start:end]
    stripped = piece.lstrip()
    start += len(piece) - len(stripped)
    return start, start + len(stripped.rstrip())


class _Merge:
    """Greedy merge of pieces ``[starts[i], ends[i])`` into chunks; state of one run."""

    def __init__(self, index: TokenIndex, start: int, pieces: _Pieces, budget: int, overlap: int):
        self.index = index
        self.text = index.text
        self.budget = budget
        self.overlap = overlap
        self.starts = [start, *pieces.ends[:-1]]
        self.ends = pieces.ends
        # The estimate for pieces lo..hi-1 is ``before_end[hi - 1] - before_start[lo]``.
        self.before_start = pieces.before_start
        self.before_end = pieces.before_end
        self.chunks: list[Span] = []
        self.last: Span = (-1, -1)

    def run(self) -> list[Span]:
        lo = hi = fresh = 0  # current chunk is pieces [lo, hi); pieces before `fresh` are overlap
        while fresh < len(self.ends):
            hi = self._grow(lo, hi, fresh)
            lo, hi, span = self._fit(lo, hi, fresh)
            if span is not None and span[1] > self.last[1]:
                self.chunks.append(span)
                self.last = span
            lo, fresh = self._overlap_start(lo, hi), hi
        return self.chunks

    def _grow(self, lo: int, hi: int, fresh: int) -> int:
        """Add pieces while the chunk fits; drop overlap pieces if the first new one needs room."""
        budget, before_start, before_end = self.budget, self.before_start, self.before_end
        n = len(self.ends)
        while hi < n:
            if lo == hi:  # an empty chunk takes the next piece whatever its size
                hi += 1
                continue
            # before_end never decreases, so the pieces that still fit are found by bisection.
            fitting = bisect_right(before_end, before_start[lo] + budget, hi, n)
            if fitting > hi:
                hi = fitting
            elif hi == fresh:  # overlap + the first new piece is too big: shed overlap
                lo += 1
            else:
                break
        return hi

    def _fit(self, lo: int, hi: int, fresh: int) -> tuple[int, int, Span | None]:
        """Shrink pieces [lo, hi) until the stripped chunk, encoded alone, fits the budget and
        its overlap with the previous chunk fits ``overlap``."""
        while True:
            start, end = _strip(self.text, self.starts[lo], self.ends[hi - 1])
            if start >= end:
                return lo, hi, None
            if self.index.fits(start, end, self.budget) and (
                start >= self.last[1] or self.index.fits(start, self.last[1], self.overlap)
            ):
                return lo, hi, (start, end)
            if lo < fresh and lo < hi - 1:
                lo += 1
            elif hi - lo > 1:
                hi -= 1
            else:
                self._cut_piece(lo, start, end)
                hi = lo + 1

    def _cut_piece(self, i: int, start: int, end: int) -> None:
        """Cut piece ``i`` after the longest prefix of [start, end) that fits the budget."""
        fits, too_big = start + 1, end  # one character always fits (budget >= 4 tokens)
        while too_big - fits > 1:
            middle = (fits + too_big) // 2
            stripped = _strip(self.text, start, middle)
            if self.index.fits(*stripped, self.budget):
                fits = middle
            else:
                too_big = middle
        self.ends.insert(i, fits)
        self.starts.insert(i + 1, fits)
        self.before_end.insert(i, self.index.before(fits))
        self.before_start.insert(i + 1, self.index.ended_before(fits))

    def _overlap_start(self, lo: int, hi: int) -> int:
        """First piece of the next chunk: the closed chunk's last pieces within ``overlap``
        (estimated here; ``_fit`` checks the overlap exactly once the next chunk is closed)."""
        if self.overlap <= 0:
            return hi
        k = hi
        floor = self.last[0]  # the next chunk must start after the last emitted one
        while (
            k - 1 > lo
            and self.starts[k - 1] > floor
            and self.before_end[hi - 1] - self.before_start[k - 1] <= self.overlap
        ):
            k -= 1
        return k
