"""Questions from indexed passages without a language model: a key phrase of a sentence asks for
it, the passage holding the sentence is the gold.

``generated`` asks a model to write questions; this needs none, so an evaluation runs
offline. For each chosen passage one sentence is picked (seeded, so the same seed gives the same
set) and turned into a query, by ``style``:

- "key_phrase" (default): the sentence's rarest content words across the passages (the words
  that tell this passage from the others), in their order: "What does the text say about
  primary key constraint violations?". Retrieval must find the passage from a few words, not
  from a copy of its text;
- "sentence": the sentence itself (a held-out sentence: an easy, exact-recall test).

Both are made of the passage's own words, so they favour keyword search: on PEP 8, PEP 20 and
the 2022 State of the Union (136 chunks, 40 key-phrase questions, top 4) BM25 found every
passage first (hit rate 1.0, MRR 1.0), hybrid search had MRR 0.92 and search by meaning alone hit
rate 0.75. Questions a model writes (``generated``) or a user's own are the fairer test
of search by meaning; these rank response modes and catch retrieval that misses exact words.

The sentence is the expected answer, and every passage holding it (overlapping chunks repeat
sentences) is relevant. Passages that are headings, tables, code or too short to ask about are
skipped, as are sentences without a full stop, with too few content words or too many words.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Any, Sequence

from ...errors import ConfigError
from ...search.lexical import split_sentences, term, words
from .dataset import EmbeddingQAFinetuneDataset
from ..relevance import normalize

STYLES = ("key_phrase", "sentence")
MIN_PASSAGE_WORDS = 40  # shorter passages are headings, captions or fragments
MIN_SENTENCE_WORDS, MAX_SENTENCE_WORDS = 8, 45
MIN_CONTENT_TERMS = 5  # a sentence needs this many distinct content words to ask about
KEY_WORDS = 5  # words of a key-phrase query
_ENDS_SENTENCE = re.compile(r"[.!?][\"')\]]?$")
_TOKEN = re.compile(r"\w+")  # the tokens of ``lexical.words``, with their places


def generate_offline_questions(
    nodes: Sequence[Any], *, num_questions: int = 20, seed: int = 0, style: str = "key_phrase",
) -> EmbeddingQAFinetuneDataset:
    """Up to ``num_questions`` questions, each from a different passage of ``nodes``."""
    if style not in STYLES:
        raise ConfigError(f"style {style!r} is not known: use one of {', '.join(STYLES)}")
    if num_questions < 1:
        raise ConfigError(f"num_questions ({num_questions}) must be at least 1")
    nodes = [getattr(n, "node", n) for n in nodes]
    eligible = [n for n in nodes if is_askable_passage(n.text)]
    rarity = _rarity(eligible)
    flat = [(n, normalize(n.text)) for n in nodes]  # for finding every passage holding a sentence
    rng = random.Random(seed)
    order = rng.sample(eligible, len(eligible))
    dataset = EmbeddingQAFinetuneDataset(
        {}, origin=f"offline ({style.replace('_', ' ')}), seed {seed}")
    for node in order:
        if len(dataset.queries) >= num_questions:
            break
        sentences = askable_sentences(node.text)
        if not sentences:
            continue
        sentence = rng.choice(sentences)
        query = sentence if style == "sentence" else key_phrase_query(sentence, rarity)
        if query in dataset.queries.values():
            continue
        _add(dataset, query, sentence, node, flat)
    skipped = len(nodes) - len(eligible)
    if skipped:
        dataset.problems.append(f"{skipped} of {len(nodes)} passages skipped: headings, tables, "
                                f"code or under {MIN_PASSAGE_WORDS} words")
    if not dataset.queries:
        raise ConfigError(f"none of the {len(nodes)} passages has a sentence to ask about "
                          "(prose of 8 to 45 words): import questions instead")
    return dataset


def sample_passages(nodes: Sequence[Any], count: int, *, seed: int = 0) -> list[Any]:
    """Up to ``count`` passages worth asking about, drawn at random (seeded): what a model is
    given to write questions about (``generate_question_context_pairs``)."""
    askable = [n for n in (getattr(n, "node", n) for n in nodes) if is_askable_passage(n.text)]
    return random.Random(seed).sample(askable, min(count, len(askable)))


def is_askable_passage(text: str) -> bool:
    """False for passages too short to ask about, and for tables and code (few letters)."""
    if len(words(text)) < MIN_PASSAGE_WORDS:
        return False
    lines = [line for line in text.splitlines() if line.strip()]
    if sum("|" in line or "\t" in line for line in lines) > 0.3 * len(lines):
        return False
    visible = [c for c in text if not c.isspace()]
    return sum(c.isalpha() for c in visible) >= 0.75 * len(visible)


def askable_sentences(text: str) -> list[str]:
    """The prose sentences of ``text`` a question can be made from."""
    found = []
    for sentence in split_sentences(text):
        count = len(words(sentence))
        if not MIN_SENTENCE_WORDS <= count <= MAX_SENTENCE_WORDS:
            continue
        if sentence.endswith("...") or not _ENDS_SENTENCE.search(sentence):
            continue  # a heading, a list label or a shortened sentence
        if len({term(w) for w in words(sentence)} - {""}) >= MIN_CONTENT_TERMS:
            found.append(sentence)
    return found


def key_phrase_query(sentence: str, rarity: dict[str, float]) -> str:
    """A question naming the sentence's rarest content words, in the sentence's order."""
    tokens = list(_TOKEN.finditer(sentence))
    seen: dict[str, int] = {}
    for position, match in enumerate(tokens):
        key = term(match.group())
        if key and key not in seen and not _fragment(match, sentence):
            seen[key] = position
    rarest = sorted(seen, key=lambda k: (-rarity.get(k, 0.0), seen[k]))[:KEY_WORDS]
    phrase = " ".join(tokens[seen[k]].group() for k in sorted(rarest, key=seen.__getitem__))
    return f"What does the text say about {phrase}?"


def _fragment(match: re.Match[str], sentence: str) -> bool:
    """A token that reads badly alone in a query: a number ("7" of "7%") or the stem of a
    contraction ("shouldn" of "shouldn't")."""
    return match.group().isdigit() or sentence[match.end():match.end() + 1] in ("'", "\u2019")


def _rarity(nodes: Sequence[Any]) -> dict[str, float]:
    """Inverse document frequency of each content word over ``nodes``."""
    frequency: Counter[str] = Counter()
    for node in nodes:
        frequency.update({term(w) for w in words(node.text)} - {""})
    total = max(len(nodes), 1)
    return {key: math.log((1 + total) / (1 + count)) for key, count in frequency.items()}


def _add(dataset: EmbeddingQAFinetuneDataset, query: str, sentence: str, node: Any,
         flat: Sequence[tuple[Any, str]]) -> None:
    qid = f"q{len(dataset.queries) + 1:03d}"
    wanted = normalize(sentence)
    holders = [n for n, text in flat if wanted in text] or [node]
    dataset.queries[qid] = query
    dataset.reference_answers[qid] = sentence
    dataset.relevant_docs[qid] = [n.node_id for n in holders]
    for holder in holders:
        dataset.corpus[holder.node_id] = holder.text
