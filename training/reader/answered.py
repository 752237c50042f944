"""The reader's answered pairs: (question with a reply's answer, a sentence holding that answer)
-> does the sentence state that this is the answer?

The check always has an answer to check: the short answer the model wrote. The plain pairs
(``pairs.py``) ask the reader to find an answer in the sentence by itself; these give it the
answer (``asked_with``) and every sentence holds it, so what it learns is whether
the sentence says that phrase answers the question, not whether the sentence holds some phrase
of the asked kind. From each answerable question of SQuAD's training files whose answer lies
in one sentence:

- **answered** (1): the gold answer, against its sentence; a third of the time the answer as
  a reply often writes it, one word of the sentence wider ("the on-screen display");
- **another phrase** (0): a name, a number or a few words of the same sentence that are not
  the answer: the sentence holds them, and does not say they answer;
- **elsewhere** (0): a phrase of another sentence of the paragraph, against that sentence;
- **the answer elsewhere** (0): the gold answer against another sentence that also holds it
  ("Midna" in every sentence of the plot);
- **near miss** (0, a third of the questions): the question with a name or number changed
  (``training.answerer.negatives``), the gold answer, its sentence;
- SQuAD 2.0's **unanswerable** questions (0): their plausible answer against its sentence.
"""

from __future__ import annotations

import random
import re
from typing import Sequence

from ragcore.search.lexical import STOPWORDS
from training.answerer.negatives import with_changed_fact

from .pairs import Pair, _read, _sentences, paragraphs, SEED

_NAME = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'’.-]*)*")
_NUMBER = re.compile(r"\b\d[\d,.]*(?:\s+(?:%|percent|[a-z]{3,}))?")
_WORD = re.compile(r"[A-Za-z][\w'’-]{3,}")
WIDER = 1 / 3
NEAR_MISS = 1 / 3
OTHER_PHRASES = 2


def asked_with(question: str, answer: str) -> str:
    """``question`` with the answer a reply gives to it ("question | answer: phrase"): does
    the sentence state that *this* is the answer? (No reader read so ships.)"""
    return f"{' '.join(question.split())} | answer: {' '.join(answer.split())}"


def answered_pairs(articles: Sequence[dict], *, seed: int = SEED,
                   limit: int | None = None) -> list[Pair]:
    """Every answered pair of ``articles`` (SQuAD JSON ``data``), shuffled by ``seed``; at most
    ``limit`` questions read (a slice for a test)."""
    rng = random.Random(seed)
    names = sorted({m.group() for _, _, p in paragraphs(articles) for qa in p["qas"]
                    for m in re.finditer(r"\b[A-Z][a-z]{2,}\b", qa["question"])
                    if m.start() > 0})
    out: list[Pair] = []
    asked = 0
    for title, _, paragraph in paragraphs(articles):
        context = paragraph["context"]
        sentences = _sentences(context)
        for qa in paragraph["qas"]:
            if limit is not None and asked >= limit:
                break
            asked += 1
            out += _pairs(qa, title, context, sentences, names, rng)
    rng.shuffle(out)
    return out


def _pairs(qa: dict, title: str, context: str, sentences: list[tuple[int, int]],
           names: list[str], rng: random.Random) -> list[Pair]:
    question, group = qa["question"].strip(), str(qa["id"])

    def pair(at: int, answer: str, label: float, kind: str, asked: str = question) -> Pair:
        return Pair(asked_with(asked, answer), _read(context, sentences, at, title), label,
                    kind, group)

    if qa.get("is_impossible"):
        out = []
        for plausible in qa.get("plausible_answers", [])[:1]:
            at = _sentence_at(sentences, int(plausible["answer_start"]))
            if at is not None and plausible["text"].strip():
                out.append(pair(at, plausible["text"], 0.0, "unanswerable"))
        return out
    if not qa.get("answers"):
        return []
    gold = qa["answers"][0]
    start, text = int(gold["answer_start"]), str(gold["text"]).strip()
    at = _sentence_at(sentences, start)
    if at is None or not text or start + len(text) > sentences[at][1]:
        return []  # an answer across sentences: no one sentence states it
    a, b = sentences[at]
    shown = _wider(context, a, b, start, start + len(text), rng) if rng.random() < WIDER else text
    out = [pair(at, shown, 1.0, "answered")]
    for phrase in _phrases(context[a:b], (start - a, start - a + len(text)), question, rng):
        out.append(pair(at, phrase, 0.0, "another phrase"))
    others = [i for i in range(len(sentences)) if i != at]
    holding = [i for i in others if text.casefold() in context[slice(*sentences[i])].casefold()]
    if holding:
        out.append(pair(rng.choice(holding), text, 0.0, "the answer elsewhere"))
    rest = [i for i in others if i not in holding]
    if rest:
        i = rng.choice(rest)
        found = _phrases(context[slice(*sentences[i])], None, question, rng, count=1)
        out += [pair(i, phrase, 0.0, "elsewhere") for phrase in found]
    if rng.random() < NEAR_MISS:
        changed = with_changed_fact({"question": question, "context": context}, names, rng)
        if changed:
            out.append(pair(at, text, 0.0, "near miss", asked=changed))
    return out


def _sentence_at(sentences: list[tuple[int, int]], start: int) -> int | None:
    return next((i for i, (a, b) in enumerate(sentences) if a <= start < b), None)


def _wider(context: str, a: int, b: int, start: int, end: int, rng: random.Random) -> str:
    """The answer with one more word of its sentence on one side, as replies often write it."""
    before = context[a:start].split()
    after = context[end:b].split()
    if after and (not before or rng.random() < 0.5):
        return f"{context[start:end]} {after[0].strip(',.;:')}".strip()
    if before:
        return f"{before[-1].strip(',.;:(')} {context[start:end]}".strip()
    return context[start:end]


def _phrases(sentence: str, gold: tuple[int, int] | None, question: str,
             rng: random.Random, count: int = OTHER_PHRASES) -> list[str]:
    """Up to ``count`` phrases of ``sentence`` a reply might give that are not the answer
    (outside ``gold``'s characters, none the question holds): its names and numbers first,
    else a word or two."""
    asked = question.casefold()
    found, seen = [], set()
    for pattern in (_NAME, _NUMBER):
        for m in pattern.finditer(sentence):
            if gold and m.start() < gold[1] and gold[0] < m.end():
                continue
            phrase = m.group().strip(" ,.;:")
            if phrase.split(" ", 1)[0].casefold() in STOPWORDS:  # "The X Corps": "X Corps"
                phrase = phrase.split(" ", 1)[1] if " " in phrase else ""
            if (len(phrase) > 1 and phrase.casefold() not in asked
                    and phrase.casefold() not in seen):
                seen.add(phrase.casefold())
                found.append(phrase)
    rng.shuffle(found)
    if len(found) < count:
        words = [m for m in _WORD.finditer(sentence) if m.group().casefold() not in asked
                 and m.group().casefold() not in STOPWORDS and not (gold and m.start() < gold[1] and gold[0] < m.end())]
        rng.shuffle(words)
        for m in words[:count - len(found)]:
            found.append(m.group())
    return found[:count]
