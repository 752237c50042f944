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
sharing most words with the question first). These files hold only 160 of them, so with
``swaps`` (stage 5 of the recipe) half the answerable questions also give one made the way SQuAD
2.0's crowd wrote theirs (``swapped``): a name of the question swapped for another name of the
same article, a question word for another word of the article, an antonym, or a "not", each read
against the answer's own sentence, which states the question as asked but not as changed. A sentence is read as the app reads it
(``reader_text``): the sentence, then its heading (the article's title) and the sentence before.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Iterator, Sequence

from ragcore.grounding.claims import sentence_spans
from ragcore.reading.text import reader_text
from ragcore.search.lexical import STOPWORDS
from training.answerer.negatives import with_changed_fact

OTHERS = 2  # other sentences of the answer's paragraph, per question
SEED = 64
SWAPPED = 0.5  # answerable questions that also give a swapped one, with ``swaps``
_WORD = re.compile(r"\w+")
_NAME = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'’.-]*)*")
_SUBJECT = re.compile(  # an auxiliary and its subject, before the verb: where "not" goes
    r"\b(?:did|does|do|was|were|is|are|can|could|has|have|had|will|would)\s+(?:the\s+)?"
    r"(?:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*|he|she|it|they|we|you)\s+(?=[a-z])")
_NEGATION = re.compile(r"\b(not|never|no|n't|nor|without)\b|n't\b", re.IGNORECASE)
_ANTONYMS = dict(pair for a, b in [
    ("first", "last"), ("earliest", "latest"), ("largest", "smallest"), ("most", "least"),
    ("highest", "lowest"), ("before", "after"), ("increase", "decrease"), ("north", "south"),
    ("east", "west"), ("oldest", "youngest"), ("older", "younger"), ("more", "less"),
    ("longest", "shortest"), ("maximum", "minimum"), ("best", "worst"), ("larger", "smaller"),
    ("higher", "lower"), ("early", "late"), ("start", "end"), ("began", "ended"),
    ("won", "lost"), ("win", "lose"), ("allowed", "banned"), ("positive", "negative"),
    ("major", "minor"), ("inside", "outside"), ("top", "bottom"), ("male", "female")]
    for pair in ((a, b), (b, a)))


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


def pairs_of(articles: Sequence[dict], *, seed: int = SEED, limit: int | None = None,
             swaps: bool = False) -> list[Pair]:
    """Every training pair of ``articles`` (SQuAD JSON ``data`` entries), shuffled by ``seed``;
    at most ``limit`` questions are read (a slice for a test); ``swaps`` adds the swapped
    questions (``swapped``)."""
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
    if swaps:
        out += _swapped_pairs(read, rng)
    rng.shuffle(out)
    return out


def _swapped_pairs(read: list, rng: random.Random) -> list[Pair]:
    """Half the answerable questions, each changed by ``swapped`` against its answer's
    sentence: label 0, since the sentence states the question as it was asked."""
    contexts: dict[int, list[str]] = {}
    for _, number, paragraph, _ in read:
        contexts.setdefault(number, []).append(paragraph["context"])
    vocabulary = {number: article_vocabulary(texts) for number, texts in contexts.items()}
    out = []
    for title, number, paragraph, sentences in read:
        context = paragraph["context"]
        for qa in paragraph["qas"]:
            if qa.get("is_impossible") or not qa.get("answers") or rng.random() >= SWAPPED:
                continue
            start = int(qa["answers"][0]["answer_start"])
            at = next((i for i, (a, b) in enumerate(sentences) if a <= start < b), None)
            if at is None:
                continue
            sentence = context[slice(*sentences[at])]
            changed = swapped(qa["question"].strip(), sentence, *vocabulary[number], rng)
            if changed:
                kind, asked = changed
                out.append(Pair(asked, _read(context, sentences, at, title), 0.0, kind,
                                str(qa["id"])))
    return out


def article_vocabulary(contexts: Sequence[str]) -> tuple[list[str], list[str]]:
    """The names (not opening a paragraph) and content words of an article's paragraphs, sorted:
    what ``swapped`` swaps a question's own for."""
    names = {m.group() for text in contexts for m in _NAME.finditer(text)
             if m.start() > 0 and m.group().casefold() not in STOPWORDS}
    words = {w for text in contexts for w in _WORD.findall(text) if _content(w)}
    return sorted(names), sorted(words)


def swapped(question: str, sentence: str, names: list[str], words: list[str],
            rng: random.Random) -> tuple[str, str] | None:
    """(kind, ``question`` changed so that ``sentence`` no longer answers it), or None: a name
    swapped for another of the article's that ``sentence`` lacks ("What do the Bulbins take
    from Link?" of a sentence on what they take from Ordon), a content word the question
    shares with ``sentence`` swapped for another of the article's, an antonym, or a "not"."""
    held = sentence.casefold()
    ways = ["name", "word", "antonym", "not"]
    rng.shuffle(ways)
    for way in ways:
        if way == "name":
            own = [m for m in _NAME.finditer(question) if m.start() > 0]
            others = [n for n in names if n.casefold() not in held
                      and n.casefold() not in question.casefold()]
            if own and others:
                m = rng.choice(own)
                return "swapped name", question[:m.start()] + rng.choice(others) + question[m.end():]
        elif way == "word":
            own = [m for m in _WORD.finditer(question)
                   if m.start() > 0 and _content(m.group()) and m.group().casefold() in held]
            if own:
                m = rng.choice(own)  # another word of the same ending: most often its kind
                others = [w for w in words if w.casefold() not in held and w.islower()
                          and w[-2:] == m.group()[-2:] and w.casefold() not in question.casefold()]
                if others:
                    return "swapped word", question[:m.start()] + rng.choice(others) + \
                        question[m.end():]
        elif way == "antonym":
            own = [m for m in _WORD.finditer(question) if m.group().lower() in _ANTONYMS
                   and _ANTONYMS[m.group().lower()] not in _WORD.findall(held)]
            if own:
                m = rng.choice(own)
                return "antonym", question[:m.start()] + _ANTONYMS[m.group().lower()] + \
                    question[m.end():]
        elif not _NEGATION.search(sentence):
            m = _SUBJECT.search(question)
            if m:
                return "not", question[:m.end()] + "not " + question[m.end():]
    return None


def _content(word: str) -> bool:
    return len(word) >= 4 and word.isalpha() and word.casefold() not in STOPWORDS


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
