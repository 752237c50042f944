"""English words and how common they are, for telling a word from a fragment of one ("xtension").

The list is pyspellchecker's English word frequencies (160,000 words counted in subtitles and
web text; its rarest words are counted 50), read once per process on first use (0.1 s), never
at ``import ragcore``. The PDF reader's ``split_words`` rejoins words a PDF's layout split
apart with it; the grounding verdict takes a word it lacks for a term a passage must state.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Words (lower case) with their counts in a large text sample of ``total`` words."""

    counts: dict[str, int]
    total: int
    words: frozenset[str]  # the keys of ``counts``, for set operations at C speed

    def count(self, word: str) -> int:
        return self.counts.get(word, 0)


@lru_cache(maxsize=1)
def english_lexicon() -> Lexicon:
    """The English word frequencies of pyspellchecker."""
    source = resources.files("spellchecker") / "resources" / "en.json.gz"
    with source.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
        counts: dict[str, int] = json.load(text)
    return Lexicon(counts, sum(counts.values()), frozenset(counts))
