"""Words, light stemming, sentence splitting and centrality for the extractive answerer.

No model, no I/O. ``terms`` gives a text's content words (lower case, stopwords dropped, a light
suffix stemmer); ``split_sentences`` cuts passages into quotable sentences; centrality (similarity
to the text's overall term profile) picks representative sentences for summaries. BM25's own
analysis (Snowball stemming) is ``ragcore.search.analysis``. Unlike ``ragcore.chunking`` this
splitter does not keep character offsets: it only needs clean sentences to quote.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from typing import Sequence

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    out over own same she should so some such than that the their theirs them themselves then
    there these they this those through to too under until up very was we were what when where
    which while who whom why will with would you your yours yourself yourselves tell please
    give describe explain know many much does say says said let us lets shall may might must
    whats""".split()
)
# Words that ask for an overview rather than a fact: such a question has no topic terms to match.
SUMMARY_WORDS = frozenset(
    "summarize summarise summary summaries overview gist main points key ideas topics "
    "document documents text about".split()
)
_INTENT_WORDS = frozenset("summarize summarise summary overview gist".split())
_FILE_NAME = re.compile(
    r"[\w.-]+\.(?:pdf|docx?|txt|md|rst|html?|xhtml|pptx|xlsx|epub|rtf|eml|csv|json|ipynb)\b",
    re.IGNORECASE)
# "key: value" lines that readers put in front of passages (file_name: ..., page_label: ...).
_METADATA_KEYS = frozenset(
    "file_name file_path file_type file_size page page_label title author source url "
    "creation_date last_modified_date doc_id".split()
)
_METADATA_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*:\s")
_WORD = re.compile(r"\w+", re.UNICODE)
_ABBREVIATIONS = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|al|Dr|Mr|Mrs|Ms|Prof|Fig|No|Vol|pp|Sec|approx|St|Mt|Jr|Sr|"
    r"Op|Co|Inc|Ltd|Gen|Col|Capt|Lt|Rev|Sgt|Gov|Sen|Rep|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|"
    r"Oct|Nov|Dec|ca|c|r|b|d|v)|\b[A-Z])\.$"
)
_BOUNDARY = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]]*\s+(?=[\"'\u201c\u2018(\[]?[A-Z0-9])")
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)]|#+)\s+")
MAX_SENTENCE_CHARS = 600
BACKGROUND_WEIGHT = 0.35


def stem(word: str) -> str:
    """A light suffix stripper: 'define', 'defines' and 'defined' share a stem, as do 'page'
    and 'pages'. Stems need not be words; they only have to match each other."""
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        if suffix == "s" and word.endswith(("ss", "us", "is")):
            break
        if suffix == "ed" and word.endswith("eed"):
            break
        word = word[: -len(suffix)] + replacement
        break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def words(text: str) -> list[str]:
    """The raw word tokens of ``text``, as ``term`` expects them (the BM25 index uses both)."""
    return _WORD.findall(text)


@lru_cache(maxsize=1 << 16)
def term(word: str) -> str:
    """The index term of one raw word: lower-cased and stemmed; "" for a stopword or a letter."""
    word = word.lower()
    if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
        return ""
    return stem(word)


def terms(text: str) -> list[str]:
    """The stemmed content words of ``text`` (lower case, no stopwords, no single letters)."""
    return [t for t in map(term, _WORD.findall(text)) if t]


def is_metadata_line(line: str) -> bool:
    match = _METADATA_LINE.match(line)
    return bool(match) and (match.group(1) in _METADATA_KEYS or "_" in match.group(1))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: paragraphs, list items and headings split first, then sentences.

    Lines wrapped inside a paragraph are joined; metadata lines such as ``file_name: x.pdf``
    and bare separators (``---``) are dropped.
    """
    sentences: list[str] = []
    for block in _blocks(text):
        for sentence in _split_block(block):
            sentence = sentence.strip()
            if is_prose(sentence):
                sentences.append(_shorten(sentence))
    return sentences


def is_prose(sentence: str) -> bool:
    """False for fragments not worth quoting: a lone word, page numbers, table-of-contents
    lines with dot leaders ("7.1. Reliability . . . . 43"), rows of symbols."""
    if len(_WORD.findall(sentence)) < 2 or _DOT_LEADER.search(sentence):
        return False
    visible = [c for c in sentence if not c.isspace()]
    if sum(c.isalpha() for c in visible) >= 0.5 * len(visible):
        return True
    # "The population was 8,336,817 in 2019 ...": numbers, but in a sentence of words
    return len(re.findall(r"\b[A-Za-z]{2,}\b", sentence)) >= 5 and \
        sum(c.isalnum() for c in visible) >= 0.8 * len(visible)


def _blocks(text: str) -> list[str]:
    """Paragraphs, with each list item or heading line as a block of its own."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or is_metadata_line(stripped) or not _WORD.search(stripped):
            blocks.append(" ".join(current))
            current = []
        elif _LIST_ITEM.match(stripped):
            blocks.append(" ".join(current))
            current = [_LIST_ITEM.sub("", stripped)]
        else:
            current.append(stripped)
    blocks.append(" ".join(current))
    return [b for b in blocks if b]


def _split_block(block: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for match in _BOUNDARY.finditer(block):
        candidate = block[start : match.start()]
        if _ABBREVIATIONS.search(candidate.rstrip("\"')]\u201d\u2019")):
            continue
        pieces.append(candidate)
        start = match.end()
    pieces.append(block[start:])
    return pieces


def _shorten(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    cut = sentence.rfind(" ", 0, MAX_SENTENCE_CHARS)
    return sentence[: cut if cut > 0 else MAX_SENTENCE_CHARS] + " ..."


def centrality_scores(sentences: Sequence[str]) -> list[float]:
    """Cosine similarity of each sentence's terms to the term profile of all the sentences."""
    docs = [Counter(terms(s)) for s in sentences]
    total: Counter[str] = Counter()
    for doc in docs:
        total.update(set(doc))  # document frequency: terms many sentences share
    total_norm = math.sqrt(sum(v * v for v in total.values())) or 1.0
    scores = []
    for doc in docs:
        norm = math.sqrt(sum(v * v for v in doc.values())) or 1.0
        scores.append(sum(total[t] * f for t, f in doc.items()) / (norm * total_norm))
    return scores


def is_summary_request(query: str) -> bool:
    """True when the query asks for an overview ('Summarize the document') with no topic, or
    names the file to summarise ('Summarise NIST.SP.800-207.pdf')."""
    named = _FILE_NAME.sub(" ", query)
    if named != query and not any(w.lower() in _INTENT_WORDS for w in _WORD.findall(named)):
        return False  # a file's name alone, or a question about it
    words = [w.lower() for w in _WORD.findall(named)]
    content = [w for w in words if w not in STOPWORDS]
    return not content or all(w in SUMMARY_WORDS for w in content)


def named_files(query: str) -> list[str]:
    """The file names a query spells out ("summarise pep-0008.rst" -> ["pep-0008.rst"])."""
    return [m.group(0) for m in _FILE_NAME.finditer(query)]
