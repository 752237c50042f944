"""The reader's training pairs: (question, a sentence read with its context) -> does this
sentence state the answer?

Made from SQuAD's training files only (``training.answerer.squad``: sources and licence in
``training/answerer/README.md``). For each answerable question:

- **positive**: the sentence holding the gold answer's span, whole;
- **the same sentence with the answer removed**: its words around the answer are still there, so
  the reader must look for the answer itself, not for the question's words;
- **the paragraph's other sentences** (up to ``OTHERS``): about the same thing, not stating it;
- **a sentence of a sibling paragraph** (same article): the near topic;
- **a near miss** (every third question): the question with a number or a name changed to one
  the paragraph does not hold (``training.answerer.negatives``' rule), against the answer's own
  sentence: what SQuAD 2.0's unanswerable questions teach.

SQuAD 2.0's unanswerable questions give their paragraph's sentences as negatives (the ones
sharing most words with the question first). A sentence is read as the app reads it
(``reader_text``): the sentence, then its heading (the article's title) and the sentence before.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from ragcore.grounding.claims import sentence_spans
from ragcore.reading.text import reader_text
from training.answerer.negatives import with_changed_fact

OTHERS = 2  # other sentences of the answer's paragraph, per question
SEED = 64
_WORD = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Pair:
    question: str
    text: str  # the sentence with its context, as ``reader_text`` writes it
    label: float  # 1: the sentence states the answer
    kind: str  # which rule made it (for the recipe's counts)
    group: str  # the question's id: a question's pairs stay in one split


def paragraphs(articles: Sequence[dict]) -> Iterator[tuple[str, int, dict]]:
    """(title, article number, paragraph) of every article, in order."""
    for number, article in enumerate(articles):
        title = str(article.get("title", "")).replace("_", " ")
        for paragraph in article["paragraphs"]:
            yield title, number, paragraph


def pairs_of(articles: Sequence[dict], *, seed: int = SEED, limit: int | None = None
             ) -> list[Pair]:
    """Every training pair of ``articles`` (SQuAD JSON ``data`` entries), shuffled by ``seed``;
    at most ``limit`` questions are read (a slice for a test)."""
    rng = random.Random(seed)
    siblings: dict[int, list[tuple[str, str]]] = {}
    read = []
    for title, number, paragraph in paragraphs(articles):
        sentences = _sentences(paragraph["context"])
        siblings.setdefault(number, []).append((paragraph["context"], title))
        read.append((title, number, paragraph, sentences))
    names = sorted({w for *_, p, _ in read for qa in p["qas"]
                    for w in re.findall(r"\b[A-Z][a-z]{2,}\b", qa["question"])[1:]})
    out: list[Pair] = []
    asked = 0
    for title, number, paragraph, sentences in read:
        for qa in paragraph["qas"]:
            if limit is not None and asked >= limit:
                break
            asked += 1
            out.extend(_question_pairs(qa, title, paragraph["context"], sentences,
                                       siblings[number], names, rng))
    rng.shuffle(out)
    return out


def _question_pairs(qa: dict, title: str, context: str, sentences: list[tuple[int, int]],
                    siblings: list[tuple[str, str]], names: list[str],
                    rng: random.Random) -> list[Pair]:
    question, group = qa["question"].strip(), str(qa["id"])

    def pair(at: int, label: float, kind: str, text: str | None = None,
             asked: str = question) -> Pair:
        return Pair(asked, text or _read(context, sentences, at, title), label, kind, group)

    if qa.get("is_impossible") or not qa.get("answers"):
        ranked = sorted(range(len(sentences)), key=lambda i: -_overlap(
            question, context[slice(*sentences[i])]))
        return [pair(i, 0.0, "unanswerable") for i in ranked[:OTHERS + 1]]
    answer = qa["answers"][0]
    start, text = int(answer["answer_start"]), str(answer["text"])
    at = next((i for i, (a, b) in enumerate(sentences) if a <= start < b), None)
    if at is None or not text or start + len(text) > sentences[at][1]:
        return []  # an answer across sentences: no one sentence states it
    out = [pair(at, 1.0, "answer")]
    a, b = sentences[at]
    removed = context[a:start] + context[start + len(text):b]
    if text.casefold() not in removed.casefold() and len(_WORD.findall(removed)) >= 3:
        out.append(pair(at, 0.0, "answer removed", reader_text(
            _closed(removed), title, _before(context, sentences, at))))
    others = [i for i in range(len(sentences)) if i != at
              and text.casefold() not in context[slice(*sentences[i])].casefold()]
    out += [pair(i, 0.0, "same paragraph") for i in rng.sample(others, min(OTHERS, len(others)))]
    other = [(c, t) for c, t in siblings if c != context]
    if other:
        sibling, heading = rng.choice(other)
        spans = _sentences(sibling)
        if spans:
            i = rng.randrange(len(spans))
            out.append(Pair(question, _read(sibling, spans, i, heading), 0.0, "sibling", group))
    if rng.random() < 1 / 3:
        changed = with_changed_fact({"question": question, "context": context}, names, rng)
        if changed:
            out.append(pair(at, 0.0, "near miss", asked=changed))
    return out


def _closed(text: str) -> str:
    """``text`` with its spaces collapsed and none left before punctuation (where the answer
    was cut out of "... and musician Ida Lowe, were ...")."""
    return re.sub(r"\s+([,.;:!?)\]])", r"\1", " ".join(text.split()))


def _sentences(context: str) -> list[tuple[int, int]]:
    return sentence_spans(context, wrapped=True)


def _before(context: str, sentences: list[tuple[int, int]], at: int) -> str:
    return context[slice(*sentences[at - 1])] if at > 0 else ""


def _read(context: str, sentences: list[tuple[int, int]], at: int, title: str) -> str:
    return reader_text(context[slice(*sentences[at])], title, _before(context, sentences, at))


def _overlap(question: str, sentence: str) -> int:
    return len(set(_WORD.findall(question.casefold())) & set(_WORD.findall(sentence.casefold())))
