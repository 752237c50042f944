"""The span reader's int8 file on ONNX Runtime, as the check would read it: where in a passage
the answer to a question stands, and how sure it is against "no answer". Measured here
(``span_check.py``), not used by the app: wired into the check it lost on every set it was not
tuned on (``README.md``, eighth session).

The sentence reader (``ragcore.reading.model``) says whether a sentence states the answer; it
cannot say which phrase of the sentence is the answer, so a wrong name from the right sentence
passes as well as the right one. The span reader reads the question with a stretch of the
passage (SQuAD 2.0's head: a start and an end logit for each token, the [CLS] token's pair for
"no answer") and scores any phrase of it: ``score`` is a phrase's start and end logits above the
"no answer" pair, ``best`` its own likeliest phrase. Fine-tuned here from the sentence reader
(``training/reader/span.py``, stage 7 of ``training/reader/README.md``); its int8 file is
written beside its recipe (``span.json``, with the file's SHA-256, checked when it opens) into
``.cache/span_out``.

A passage is read in stretches of ``WINDOW`` characters, as the reader was trained (a paragraph
cut around its answer when longer): around the phrase scored, or one after another, half
overlapping, for its own best phrase. Runs are one by one, as the sentence reader's are.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragcore.errors import ConfigError
from ragcore.reading.model import open_session, pair_tokenizer
from training.reader.span import MAX_TOKENS, MODEL_FILE, RECIPE_FILE, WINDOW

FOLDER = Path(".cache/span_out")  # where ``training.reader.span`` exports it
LONGEST = 30  # tokens a phrase of its own may take
_CACHE = 4096  # stretches read, kept: the check reads the same passages for several claims


@dataclass(frozen=True, slots=True)
class Phrase:
    """A phrase of a passage (its characters) and its score above "no answer"."""

    start: int
    end: int
    score: float


@dataclass(frozen=True, slots=True)
class _Read:
    starts: np.ndarray  # per token of the stretch read
    ends: np.ndarray
    null: float  # the [CLS] pair: "no answer"
    offsets: tuple[tuple[int, int, int], ...]  # (token, first, last character) of the stretch


class SpanReader:
    """Scores phrases of passages as answers to questions. Thread-safe; loads on first use."""

    def __init__(self, *, folder: Path = FOLDER, threads: int = 1) -> None:
        if threads < 1:
            raise ConfigError(f"threads ({threads}) must be at least 1")
        self.folder = Path(folder)
        self.threads = threads
        self._session: Any = None
        self._lock = threading.Lock()
        self._reads: dict[tuple[str, str], _Read] = {}

    def score(self, question: str, passage: str, start: int, end: int) -> float | None:
        """The score of ``passage[start:end]`` as the answer to ``question``, above "no
        answer"; None when the stretch read around it cuts it off."""
        first = 0 if len(passage) <= WINDOW else max(0, min(start - WINDOW // 2,
                                                             len(passage) - WINDOW))
        read = self._read(question, passage[first:first + WINDOW])
        start, end = start - first, end - first
        inside = [(t, a, b) for t, a, b in read.offsets if b > start and a < end]
        if not inside or read.offsets[-1][2] < end:
            return None
        return float(read.starts[inside[0][0]] + read.ends[inside[-1][0]]) - read.null

    def best(self, question: str, passage: str) -> Phrase | None:
        """Its own likeliest phrase of ``passage`` (at most ``LONGEST`` tokens); None for a
        blank passage."""
        found: Phrase | None = None
        for first in range(0, max(1, len(passage) - WINDOW // 2), WINDOW // 2):
            stretch = passage[first:first + WINDOW]
            if not stretch.strip():
                continue
            read = self._read(question, stretch)
            phrase = _likeliest(read)
            if phrase is not None and (found is None or phrase.score > found.score):
                found = Phrase(phrase.start + first, phrase.end + first, phrase.score)
        return found

    def _read(self, question: str, stretch: str) -> _Read:
        key = (question, stretch)
        read = self._reads.get(key)
        if read is None:
            read = self._run(question, stretch)
            if len(self._reads) >= _CACHE:
                self._reads.clear()
            self._reads[key] = read
        return read

    def _run(self, question: str, stretch: str) -> _Read:
        session = self._load()
        encoding = pair_tokenizer(MAX_TOKENS).encode(question[:300], stretch)
        ids = np.asarray([encoding.ids], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64)}
        starts, ends = (a.reshape(-1) for a in session.run(None, feed)[:2])
        offsets = tuple((t, a, b) for t, ((a, b), s) in enumerate(
            zip(encoding.offsets, encoding.sequence_ids)) if s == 1)
        return _Read(starts, ends, float(starts[0] + ends[0]), offsets)

    def _load(self) -> Any:
        if self._session is None:
            with self._lock:
                if self._session is None:
                    self._session = open_session(self.folder / MODEL_FILE, RECIPE_FILE,
                                                 self.threads, "training.reader.span")
        return self._session


def _likeliest(read: _Read) -> Phrase | None:
    """The stretch's phrase with the highest start and end logits, above "no answer"."""
    if not read.offsets:
        return None
    tokens = np.asarray([t for t, _, _ in read.offsets])
    starts, ends = read.starts[tokens], read.ends[tokens]
    pairs = starts[:, None] + ends[None, :]
    n = len(tokens)
    allowed = np.triu(np.ones((n, n), dtype=bool)) & ~np.triu(np.ones((n, n), dtype=bool),
                                                              LONGEST)
    pairs = np.where(allowed, pairs, -np.inf)
    s, e = np.unravel_index(int(np.argmax(pairs)), pairs.shape)
    return Phrase(read.offsets[s][1], read.offsets[e][2], float(pairs[s, e]) - read.null)
