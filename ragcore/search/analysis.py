"""English analysis for keyword search: raw words in, BM25 index terms out (no I/O).

A term is a word lower-cased, dropped if it is an English stopword (Snowball's list) or a
single letter, and otherwise reduced by the Snowball English stemmer (Porter2), so "running"
and "runs" index as "run", "policies" and "policy" as "polici". This is the analysis the
keyword index (``ragcore.index.keyword``) uses for nodes and questions alike.

It differs from its sibling ``ragcore.search.lexical``, which the extractive answerer ranks
sentences with: that module keeps a light suffix stripper and a stoplist extended with question
words ("tell", "explain"), tuned for picking sentences; this one follows the standard analysis that
published BM25 baselines use. Words are split the same way (runs of letters and digits).

The stemmer comes from PyStemmer (C), imported on the first term, not at ``import ragcore``;
without it the pure-Python ``snowballstemmer`` (the same algorithm) is used.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable

from ..errors import ConfigError

# Snowball's English stop list (snowballstem.org, algorithms/english/stop.txt), without its
# contractions ("don't", "i'll"): the word pattern splits those at the apostrophe, so they can
# never arrive whole.
STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom this
    that these those am is are was were be been being have has had having do does did doing would
    should could ought cannot a an the and but if or because as until while of at by for with about
    against between into through during before after above below to from up down in out on off
    over under again further then once here there when where why how all any both each few more
    most other some such no nor not only own same so than too very""".split()
)

Analyzer = Callable[[str], str]  # one raw word -> its index term, "" to leave it out
# Recorded with the BM25 postings saved in an index (``ragcore.index.postings``): change it
# whenever ``term`` maps some word differently, and saved postings are rebuilt, not misread.
ANALYSIS_VERSION = "english-snowball-1"
_WORD = re.compile(r"\w+", re.UNICODE)


@lru_cache(maxsize=1)
def _stem_word() -> Callable[[str], str]:
    """The Snowball English stemmer's one-word function (PyStemmer, else snowballstemmer)."""
    stemmer: Any
    try:
        import Stemmer  # PyStemmer

        stemmer = Stemmer.Stemmer("english")
    except ImportError:
        try:
            import snowballstemmer
        except ImportError as exc:
            raise ConfigError(
                "keyword search needs a Snowball stemmer: pip install PyStemmer "
                "(or the pure-Python snowballstemmer)"
            ) from exc
        stemmer = snowballstemmer.stemmer("english")
    return stemmer.stemWord


def words(text: str) -> list[str]:
    """The raw words of ``text`` (runs of letters and digits), as ``term`` expects them."""
    return _WORD.findall(text)


def stem(word: str) -> str:
    """The Snowball English (Porter2) stem of a lower-case ``word``: "running" -> "run"."""
    return _stem_word()(word)


@lru_cache(maxsize=1 << 16)
def term(word: str) -> str:
    """The index term of one raw word: lower-cased and stemmed; "" for a stopword or a letter."""
    word = word.lower()
    if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
        return ""
    return stem(word)


def terms(text: str, analyzer: Analyzer = term) -> list[str]:
    """The index terms of ``text`` in order, stopwords and single letters left out."""
    return [t for t in map(analyzer, words(text)) if t]
