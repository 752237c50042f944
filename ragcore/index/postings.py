"""BM25 postings of one node segment: built from its nodes, merged, written beside them, mapped.

A node segment (``node_segments``) never changes once written, so neither do the postings of
its rows: they are built when the segment is written (the batch of a commit: its nodes are
analyzed once), merged when segments merge (the kept rows' postings are renumbered and
concatenated, nothing is analyzed again), and read back memory-mapped by every later load, so
the first keyword query after a load costs no rebuild. ``KeywordIndex`` combines the postings
of the segments with a mask of the rows still live; BM25's statistics (live rows, document
frequency, average length) are sums over those rows, so the scores are exact whatever the
segments.

Files, in the segment's folder (written before the manifest that names the generation, and
recorded with checksums like every file of it):

- ``postings_terms.bin``: the segment's distinct terms, sorted by their UTF-8 bytes and
  concatenated (a term holds no separator: it is one analyzed word);
- ``postings_terms.npy``: int64 ``(terms + 1, 2)``: byte offset of each term in the ``.bin``,
  and where its postings start (the last row: the ends);
- ``postings_rows.npy`` int32 rows (ascending within a term) and ``postings_tfs.npy`` int32
  term frequencies, aligned;
- ``postings_lengths.npy``: int32 terms per row;
- ``postings.json``, written last: format tag and version, the analyzer (``ANALYZER``; postings
  of another analyzer are rebuilt, with a log line, never used) and the counts.

``read_postings`` maps every file and reads none of their data (the header aside): a load maps
each segment's postings under its generation's reader lock (``keyword_parts.saved_postings``),
and a mapping outlives the deletion of its file, so a keyword query after a writer removed that
generation still reads them. A query term is found by binary search over the sorted terms (no
vocabulary is loaded).
"""

from __future__ import annotations

import json
import logging
import os
from array import array
from bisect import bisect_left
from itertools import islice
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np

from ..disk import load_npy, missing, write_npy
from ..search.analysis import ANALYSIS_VERSION, Analyzer, term, words
from .disk.checksums import damaged

FORMAT = "ragcore-postings"
VERSION = 1
ANALYZER = f"ragcore.search.analysis.term/{ANALYSIS_VERSION}"
HEADER = "postings.json"
ARRAYS = ("postings_terms.npy", "postings_rows.npy", "postings_tfs.npy", "postings_lengths.npy")
FILES = ("postings_terms.bin", *ARRAYS, HEADER)  # the header last: written after the others
_EMPTY = np.zeros(0, np.int64)
BLOCK_ROWS = 8192  # rows analyzed and sorted at a time
MERGE_POSTINGS = 1 << 20  # postings a merge renumbers at a time

log = logging.getLogger(__name__)


class _Terms(Sequence[bytes]):
    """The sorted terms of a ``.bin`` and its offsets, as a sequence for ``bisect``."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray) -> None:
        self.blob, self.offsets = blob, offsets

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, i):  # type: ignore[override]
        return self.blob[int(self.offsets[i]) : int(self.offsets[i + 1])].tobytes()


@dataclass(slots=True, eq=False)
class Postings:
    """Term -> (rows, term frequencies) over the rows of one segment (or of nodes in memory)."""

    blob: np.ndarray  # uint8: the sorted terms, concatenated
    table: np.ndarray  # (terms + 1, 2) int64: byte offset of each term, start of its postings
    rows: np.ndarray  # (postings,) int32
    tfs: np.ndarray  # (postings,) int32
    lengths: np.ndarray  # (rows,) int32 terms per row

    def __len__(self) -> int:
        return len(self.lengths)

    def terms(self) -> list[str]:
        """Every term, in the stored order (for merging)."""
        data, ends = self.blob.tobytes(), self.table[:, 0].tolist()
        return [data[a:b].decode("utf-8") for a, b in zip(ends, ends[1:])]

    def find(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """The rows and term frequencies of the index term ``word`` (empty when absent)."""
        key = word.encode("utf-8")
        terms = _Terms(self.blob, self.table[:, 0])
        i = bisect_left(terms, key)
        if i == len(terms) or terms[i] != key:
            return self.rows[:0], self.tfs[:0]
        start, stop = int(self.table[i, 1]), int(self.table[i + 1, 1])
        return self.rows[start:stop], self.tfs[start:stop]


def build_postings(texts: Iterable[str], analyzer: Analyzer = term) -> Postings:
    """The postings of ``texts`` (one per row): each distinct raw word analyzed once, a block
    of ``BLOCK_ROWS`` rows at a time (merged after), so memory follows the block, not the
    batch (a commit of a whole big file's nodes runs inside an ingestion)."""
    ids = _TermIds(analyzer)
    blocks, texts = [], iter(texts)
    while block := list(islice(texts, BLOCK_ROWS)):
        blocks.append(_build_block(block, ids))
    if len(blocks) <= 1:
        return blocks[0] if blocks else _build_block([], ids)
    return merge_postings([(b, np.arange(len(b))) for b in blocks])


def _build_block(texts: list[str], ids: _TermIds) -> Postings:
    """The postings of one block of rows, through the shared raw word -> term id map."""
    # Term ids go straight into a C array: no list of millions of word strings is kept.
    tokens, ends = array("q"), array("q")
    for text in texts:
        tokens.extend(map(ids.__getitem__, words(text)))
        ends.append(len(tokens))
    flat = np.frombuffer(tokens, dtype=np.int64) if tokens else np.zeros(0, np.int64)
    per_row = np.diff(np.frombuffer(ends, dtype=np.int64), prepend=0) if ends else flat
    rows = np.repeat(np.arange(len(ends), dtype=np.int64), per_row)
    keep = flat >= 0  # words the analyzer leaves out (stopwords, letters) map to -1
    flat, rows = flat[keep], rows[keep]
    # Renumber the block's terms in sorted byte order, so a query term is found by binary
    # search.
    used = np.unique(flat)
    encoded = [ids.terms[i].encode("utf-8") for i in used.tolist()]
    order = sorted(range(len(encoded)), key=encoded.__getitem__)
    rank = np.zeros(len(ids.terms), dtype=np.int64)
    rank[used[order]] = np.arange(len(order))
    lengths = np.bincount(rows, minlength=len(ends))
    return _from_pairs([encoded[i] for i in order], rank[flat], rows, lengths)


def merge_postings(parts: Sequence[tuple[Postings, np.ndarray]]) -> Postings:
    """One segment's postings from the rows ``kept`` (local, ascending) of each part, in order:
    their terms unioned, their rows renumbered, nothing analyzed again. A term's postings are
    its postings in each part, in part order, so each posting's place is computed, not sorted
    for, ``MERGE_POSTINGS`` at a time: memory is the output plus a bounded slice (a merge of
    big segments runs inside an ingestion, whose peak memory is bounded)."""
    vocabulary = sorted({t for part, _ in parts for t in part.terms()},
                        key=lambda t: t.encode("utf-8"))
    term_ids = {t: i for i, t in enumerate(vocabulary)}
    gids = [np.fromiter(map(term_ids.__getitem__, p.terms()), np.int64) for p, _ in parts]
    del term_ids
    offsets = np.cumsum([0, *(len(kept) for _, kept in parts)]).tolist()
    counts = np.zeros(len(vocabulary), dtype=np.int64)
    for (part, kept), gid, offset in zip(parts, gids, offsets):
        remap = _remap(part, kept, offset)
        for a, b in _term_ranges(part):
            counts[gid[a:b]] += _live_slice(part, remap, a, b)[2]
    table = np.zeros((len(vocabulary) + 1, 2), dtype=np.int64)
    table[1:, 1] = np.cumsum(counts)
    rows = np.empty(int(table[-1, 1]), dtype=np.int32)
    tfs = np.empty(len(rows), dtype=np.int32)
    cursor = table[:-1, 1].copy()  # where each term's next postings go
    for (part, kept), gid, offset in zip(parts, gids, offsets):
        remap = _remap(part, kept, offset)
        for a, b in _term_ranges(part):
            new_rows, new_tfs, per_term = _live_slice(part, remap, a, b)
            local = np.repeat(np.arange(b - a), per_term)  # each live posting's term, from a
            rank = np.arange(len(local)) - (np.cumsum(per_term) - per_term)[local]
            places = cursor[gid[a:b]][local] + rank
            rows[places], tfs[places] = new_rows, new_tfs
            cursor[gid[a:b]] += per_term
    encoded = [t.encode("utf-8") for t in vocabulary]
    table[1:, 0] = np.cumsum(np.array([len(t) for t in encoded], dtype=np.int64))
    lengths = np.concatenate([np.asarray(p.lengths)[k] for p, k in parts] or [_EMPTY])
    blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    return Postings(blob, table, rows, tfs, lengths.astype(np.int32))


def _remap(part: Postings, kept: np.ndarray, offset: int) -> np.ndarray:
    """Each row of ``part``: its row in the merged segment (-1: dropped)."""
    remap = np.full(len(part), -1, dtype=np.int32)
    remap[kept] = offset + np.arange(len(kept), dtype=np.int32)
    return remap


def _term_ranges(part: Postings) -> Iterator[tuple[int, int]]:
    """Runs of terms ``(a, b)`` holding about ``MERGE_POSTINGS`` postings (or one term)."""
    starts, a = part.table[:, 1], 0
    while a < len(starts) - 1:
        b = int(np.searchsorted(starts, starts[a] + MERGE_POSTINGS, side="right")) - 1
        b = min(max(b, a + 1), len(starts) - 1)
        yield a, b
        a = b


def _live_slice(part: Postings, remap: np.ndarray, a: int, b: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The live postings of terms ``a..b-1``: their new rows, their frequencies, and how many
    each term keeps."""
    bounds = part.table[a : b + 1, 1]
    lo, hi = int(bounds[0]), int(bounds[-1])
    new_rows = remap[part.rows[lo:hi]]
    live = new_rows >= 0
    alive = np.concatenate([[0], np.cumsum(live, dtype=np.int64)])
    per_term = alive[bounds[1:] - lo] - alive[bounds[:-1] - lo]
    return new_rows[live], np.asarray(part.tfs[lo:hi])[live], per_term


def _from_pairs(terms: list[bytes], term_of: np.ndarray, rows: np.ndarray,
                lengths: np.ndarray) -> Postings:
    """Postings from (term, row) pairs, one per occurrence: one sort groups them term-major
    and the places where the pair changes count them."""
    n = max(len(lengths), 1)
    keys = np.sort(term_of.astype(np.int64) * n + rows)
    first = np.flatnonzero(np.diff(keys, prepend=-1))
    tfs = np.diff(first, append=keys.size)
    term_ids, rows = np.divmod(keys[first], n)
    table = np.zeros((len(terms) + 1, 2), dtype=np.int64)
    table[1:, 0] = np.cumsum(np.array([len(t) for t in terms], dtype=np.int64))
    table[1:, 1] = np.cumsum(np.bincount(term_ids, minlength=len(terms)))
    blob = np.frombuffer(b"".join(terms), dtype=np.uint8)
    return Postings(blob, table, rows.astype(np.int32), tfs.astype(np.int32),
                    np.asarray(lengths).astype(np.int32))


def write_postings(folder: Path, postings: Postings) -> None:
    """Write ``postings`` into the segment folder ``folder`` (the header last; files there are
    unlinked first, so a link to an earlier generation's file is never written through)."""
    for name in FILES:
        (folder / name).unlink(missing_ok=True)
    (folder / FILES[0]).write_bytes(postings.blob.tobytes())
    for name, array in zip(ARRAYS, (postings.table, postings.rows, postings.tfs,
                                    postings.lengths)):
        write_npy(folder / name, array)
    header = {"format": FORMAT, "version": VERSION, "analyzer": ANALYZER,
              "rows": len(postings), "terms": len(postings.table) - 1,
              "postings": len(postings.rows)}
    (folder / HEADER).write_text(json.dumps(header), encoding="utf-8")


def has_postings(folder: Path) -> bool:
    """Whether ``folder`` holds postings of this analyzer (reading only their header)."""
    try:
        header = json.loads((folder / HEADER).read_bytes())
    except (OSError, ValueError):
        return False
    return isinstance(header, dict) and header.get("format") == FORMAT and (
        header.get("version") == VERSION and header.get("analyzer") == ANALYZER
    )


def read_postings(folder: Path, rows: int) -> Postings | None:
    """The postings written in ``folder`` for its ``rows`` rows, every file memory-mapped (a
    mapping keeps its file's data after the file is deleted); None if there are none (a
    segment written before them) or another analyzer built them."""
    try:
        header = json.loads((folder / HEADER).read_bytes())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise damaged(folder / HEADER, f"damaged JSON ({exc})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise damaged(folder / HEADER, "not a ragcore postings header")
    if header.get("version") != VERSION or header.get("analyzer") != ANALYZER:
        log.info("%s: keyword postings of analyzer %r (format %r); this ragcore analyzes with "
                 "%r: rebuilding them", folder, header.get("analyzer"), header.get("version"),
                 ANALYZER)
        return None
    table, found, tfs, lengths = (load_npy(folder / n, "postings", mmap_min_bytes=0)
                                  for n in ARRAYS)
    postings = Postings(_map_bytes(folder / FILES[0]), table, found, tfs, lengths)
    _check(folder, postings, header, rows)
    return postings


def _map_bytes(path: Path) -> np.ndarray:
    """The bytes of ``path`` as a read-only uint8 map (an empty file cannot be mapped)."""
    try:
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return np.zeros(0, np.uint8)
            return np.memmap(handle, dtype=np.uint8, mode="r")
    except FileNotFoundError as exc:
        raise missing(path) from exc


def _check(folder: Path, postings: Postings, header: dict, rows: int) -> None:
    table = postings.table
    shapes_ok = (
        table.ndim == 2 and table.shape[1:] == (2,) and table.dtype == np.int64
        and len(table) == header.get("terms", -1) + 1
        and postings.rows.dtype == postings.tfs.dtype == postings.lengths.dtype == np.int32
        and postings.rows.shape == postings.tfs.shape == (header.get("postings"),)
        and postings.lengths.shape == (rows,) == (header.get("rows"),)
    )
    if not shapes_ok or int(table[-1, 0]) != len(postings.blob) or (
        int(table[-1, 1]) != len(postings.rows)
    ):
        raise damaged(folder / HEADER, f"the postings files do not agree with the header or "
                      f"with the segment's {rows} rows")


class _TermIds(dict):
    """Raw word -> term id (-1 for words the analyzer leaves out), filled on first sight.

    Looking words up through ``dict.__getitem__`` keeps the per-token work in C; only a word
    never seen before (``__missing__``) costs a Python call to the analyzer.
    """

    def __init__(self, analyzer: Analyzer) -> None:
        super().__init__()
        self.analyzer = analyzer
        self.vocabulary: dict[str, int] = {}
        self.terms: list[str] = []  # term id -> term

    def __missing__(self, word: str) -> int:
        t = self.analyzer(word)
        if not t:
            self[word] = -1
            return -1
        term_id = self[word] = self.vocabulary.setdefault(t, len(self.vocabulary))
        if term_id == len(self.terms):
            self.terms.append(t)
        return term_id
