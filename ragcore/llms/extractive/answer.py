"""The extractive answerer's answers: what each response mode's request gets, and the wording.

Every answer quotes sentences of the passages word for word (chosen by ``rank``
from the candidates of ``text``) under one label line; a sentence that introduces a
list is quoted with its items, indented under it. The styles mirror what each response mode
asks of a model:

    style       request kind (mode)                quotes
    direct      qa (compact, refine's first step,  the answer first, a sentence for each other
                accumulate)                        part of the question, close runners-up
    one_pass    simple_summarize                   the answer first, then the other relevant
                                                   sentences in the order the passages give them
    merge       summary (tree_summarize)           the best sentence of each passage, merged:
                                                   sentences saying the same thing quoted once
    refine      refine                             the answer so far, unchanged unless the new
                                                   passage answers better or answers more

A question that asks for an overview ("Summarize the document") gets the most representative
sentences in document order instead, and a question no sentence answers gets ``NOT_FOUND``.

How sure the answerer is that the passages answer the question (its answer score, 0..1) is no
part of the text: given a ``notes`` dict (the turn's trace notes, ``ExtractiveLLM.with_notes``),
an answer that judged the question states it there under ``SCORE_NOTE``.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

from ...search.lexical import is_summary_request
from .question import asks_for_list, asks_one_thing, without_source_words
from .model import Assessment, assess, load_weights, variant
from .rank import Ranking, Scorer, rank
from .summary import overview_reply
from .text import Candidate, candidates, quote_unit

LABEL = "Extractive answer (no language model configured)"
NEEDS_DOCUMENTS = (
    f"{LABEL}: I can only answer from your documents, by quoting the passages most relevant "
    "to a question, and no passages came with this message. Ask a question about an index "
    "(query, or a chat mode that retrieves), or configure a language model (Ollama or an "
    "OpenAI-compatible server) for free conversation."
)
CHAT_NEEDS_MODEL = (
    f"{LABEL}: chatting needs a language model. Without one I can only quote your documents, "
    "and this chat mode (simple) sends me no passages, only the conversation. Choose a chat "
    "mode that searches the documents (condense_plus_context, context, condense_question or "
    "react), or configure a language model (Ollama or an OpenAI-compatible server)."
)
NOT_FOUND = (
    f"{LABEL}: not found. None of the passages retrieved for this question answers it, so "
    "there is nothing to quote. Try other words, or add documents that cover it."
)
# The trace note an answer's score goes under (the app and the CLI read it there).
SCORE_NOTE = "answer_score"
# Where a saved chat turn keeps, beside that score, the threshold the answerer says "not found"
# under (``workspace.conversation`` records both; the app reads them back).
THRESHOLD_NOTE = "not_found_under"
_QUOTED = "quoted from the documents, best match first:"
_ANSWER_HEADER = f"{LABEL}: {_QUOTED}"
# A short answer is given when the span model's winning phrase has at least this probability
# among the phrases of the best sentences; under it the sentences are quoted instead.
PHRASE_FLOOR = 0.1
TIE = 0.01  # sentence scores this close answer equally well


def not_found_threshold(embedder: Any = None) -> float:
    """The answer score under which the answerer says "not found" (it depends on the model
    sentences are scored with: ``model.variant``)."""
    return float(load_weights()["found"][variant(embedder)]["threshold"])
_OUR_LABEL_LINE = re.compile(r"^" + re.escape(LABEL) + r".*$\n?", re.MULTILINE)
# The answer so far is replaced first only by a sentence this much better.
REFINE_MARGIN = 0.05
# Sentences of other passages worth quoting in one_pass and merge: this share of the best.
WIDE_FLOOR = 0.75
# Two sentences this close in meaning say the same thing (merge quotes one of them).
SAME_MEANING = 0.9
MAX_ITEMS = 12


_LABEL_LINE = re.compile(r"^" + re.escape(LABEL) + r":[ \t]*(?P<rest>.*)$", re.MULTILINE)
_BOLD = re.compile(r"^\*\*(?P<phrase>.+?)\*\*")
# Before issue 32 the label line stated the score: "<LABEL> [score 0.82]: ...".
_OLD_SCORE = re.compile(re.escape(LABEL) + r" \[score (?P<value>\d\.\d\d)\]")


def label_line(rest: str) -> str:
    """Our first line: the label, then what follows it."""
    return f"{LABEL}: {rest}"


def note_score(notes: dict | None, score: float) -> None:
    """State how sure the answerer is (clipped to 0..1) in ``notes``, when given them."""
    if notes is not None:
        notes[SCORE_NOTE] = min(max(float(score), 0.0), 1.0)


def split_old_score(text: str) -> tuple[str, float | None]:
    """An answer saved by a version that wrote its score on the label line: the text without
    " [score S]", and S (None when it states none). Only for reading such old records."""
    found = _OLD_SCORE.search(text)
    if found is None:
        return text, None
    return _OLD_SCORE.sub(LABEL, text), float(found["value"])


def says_not_found(text: str) -> bool:
    """Whether ``text`` is our "not found" reply."""
    found = _LABEL_LINE.search(text)
    return bool(found) and found["rest"].startswith("not found.")


def short_answer_of(text: str) -> str | None:
    """The short answer (the bold phrase opening the label line's rest), if there is one."""
    found = _LABEL_LINE.search(text)
    bold = _BOLD.match(found["rest"]) if found else None
    return bold["phrase"] if bold else None


def strip_labels(text: str) -> str:
    """``text`` without the label lines of our own earlier answers (tree levels, refine, tools)."""
    return _OUR_LABEL_LINE.sub("", text)


def answer(
    context: str,
    question: str,
    *,
    limit: int,
    embedder: Any = None,
    style: str = "direct",
    background: str = "",
    notes: dict | None = None,
) -> str:
    """Quote the sentences of ``context`` that answer ``question`` in ``style`` (see the module
    docstring); ``background`` is the topic of a follow-up that only refers to it. The score of
    an answer judged goes to ``notes``."""
    cands = candidates(strip_labels(context))
    if not cands:  # no passages at all, or only headings, code and tables
        return NOT_FOUND if context.strip() else NEEDS_DOCUMENTS
    if is_summary_request(question):
        return overview(cands, limit=limit, question=question)
    scorer = Scorer(cands, embedder, background=background)
    if style == "merge":  # each passage's best, merged: no one answer to judge
        ranking = rank(scorer, question, limit=limit)
        return quote_reply(cands, _merge(scorer, ranking, limit=limit)) if ranking.found \
            else NOT_FOUND
    ranking = rank(scorer, question, limit=limit, floor=False)
    judged = assess(scorer, without_source_words(question), ranking.scores)
    note_score(notes, judged.answered)
    if not judged.found:
        return NOT_FOUND
    phrase = judged.phrase
    one_part = asks_one_thing(without_source_words(question))
    if phrase is not None and phrase.probability >= PHRASE_FLOOR and one_part \
            and not cands[phrase.sentence].followers and not _several_answer(scorer, ranking):
        unit = quote_unit(list(cands), phrase.sentence)[-2:]  # and what it refers back to
        lines = [f"- {cands[k].text}" for k in unit]
        return "\n".join([label_line(f"**{phrase.text}**"), *lines])
    chosen = _one_pass(scorer, ranking, limit=limit) if style == "one_pass" else ranking.chosen
    lead = cands[chosen[0]].lead
    if asks_for_list(question) and lead is not None:  # an item answers: its list, whole
        chosen = [lead, *(i for i in chosen[1:] if i != lead and cands[i].lead != lead)]
    return quote_reply(cands, chosen)


def answerability(passages: Sequence[str], question: str, *, embedder: Any = None) -> float:
    """The chance (0..1) that ``passages`` answer ``question``, by the answerer's model (the
    score its answers state), from the question and the passages themselves; 0.0 when they hold
    no sentence to judge."""
    cands = candidates(strip_labels("\n\n".join(passages)))
    return float(assessed(cands, question, embedder).answered) if cands else 0.0


_ASSESSED: OrderedDict[tuple, Assessment] = OrderedDict()
_ASSESSED_LOCK = threading.Lock()
ASSESSED_KEPT = 8  # questions over passages remembered: a few people's latest answers


def assessed(cands: Sequence[Candidate], question: str, embedder: Any = None) -> Assessment:
    """The answerer's phrase for ``question`` over ``cands`` and its chance that they answer
    it (``rank``, then ``model.assess``), remembered for the last ``ASSESSED_KEPT``: one
    answer's passages are read this way by the not-found gate (``answerability``) and again by
    the grounding verdict (its reader's phrase), ~0.2 s of embedding each on two cores."""
    key = (question, getattr(embedder, "model_name", None), tuple(map(repr, cands)))
    with _ASSESSED_LOCK:
        known = _ASSESSED.get(key)
        if known is not None:
            _ASSESSED.move_to_end(key)
            return known
    scorer = Scorer(list(cands), embedder)
    ranking = rank(scorer, question, limit=3, floor=False)
    judged = assess(scorer, without_source_words(question), ranking.scores)
    with _ASSESSED_LOCK:
        _ASSESSED[key] = judged
        while len(_ASSESSED) > ASSESSED_KEPT:
            _ASSESSED.popitem(last=False)
    return judged


def _several_answer(scorer: Scorer, ranking: Ranking) -> bool:
    """Whether sentences saying different things answer equally well ("What does the cutover
    move?" over four sentences that each name other servers): no one phrase is the answer."""
    scores = ranking.scores
    best = max(range(len(scores)), key=lambda i: scores[i])
    return any(i != best and scores[i] >= scores[best] - TIE and not scorer.same(i, best)
               for i in range(len(scores)))


def refine(existing: str, new_context: str, question: str, *, limit: int, embedder: Any = None,
           notes: dict | None = None) -> str:
    """The answer so far, improved from ``new_context`` only where that answers better.

    The new passage is ranked on its own (its sentences read in context). Its answer is added
    when the answer so far has room for it or it is clearly better: judged on the sentences'
    own words and meaning, since the answer so far no longer has the headings and neighbours
    its sentences were chosen with. A clearly better sentence goes first (a correction).
    A fresh answer (there was none so far) states its score in ``notes``.
    """
    kept_lines = [line for line in strip_labels(existing).splitlines() if line.strip()]
    kept = [line[2:].strip() for line in kept_lines if line.startswith("- ")]
    if not kept:  # no answer so far, or "not found"
        return answer(new_context, question, limit=limit, embedder=embedder, notes=notes)
    fresh = candidates(strip_labels(new_context))
    ranking = rank(Scorer(fresh, embedder), question, limit=limit) if fresh else None
    if ranking is None or not ranking.found:
        return existing
    new = [i for i in ranking.chosen if fresh[i].text not in kept]
    if not new:
        return existing
    texts = kept + [fresh[i].text for i in new]
    plain = Scorer([Candidate(t, 0, k) for k, t in enumerate(texts)], embedder).scores(
        without_source_words(question))
    best_kept, offered = max(plain[: len(kept)]), plain[len(kept):]
    better = offered[0] > best_kept + REFINE_MARGIN
    room = max(0, limit - len(kept))
    added = new[: max(room, 1)] if better else new[:room]
    if not added:
        return existing
    lines = _quote_lines(fresh, added)
    if better:  # the correction goes first; the weakest quote so far makes room for it
        groups = _top_level_groups(kept_lines)
        keep = [line for group in groups[: max(1, limit - len(added))] for line in group]
        return "\n".join([_ANSWER_HEADER, *lines, *keep])
    return "\n".join([_ANSWER_HEADER, *kept_lines, *lines])


def _top_level_groups(lines: list[str]) -> list[list[str]]:
    """Quote lines grouped: each top-level "- " quote with the indented items under it."""
    groups: list[list[str]] = []
    for line in lines:
        if line.startswith("- ") or not groups:
            groups.append([line])
        else:
            groups[-1].append(line)
    return groups


def quote_reply(cands: Sequence[Candidate], chosen: Sequence[int]) -> str:
    """Our answer format: the label, then each quote on a line (its list indented under it)."""
    return "\n".join([_ANSWER_HEADER, *_quote_lines(cands, chosen)])


def _quote_lines(cands: Sequence[Candidate], chosen: Sequence[int]) -> list[str]:
    lines: list[str] = []
    quoted: set[str] = set()
    for n, i in enumerate(chosen):
        for k in quote_unit(list(cands), i, elaborate=n == 0):
            if cands[k].text not in quoted:
                quoted.add(cands[k].text)
                lines.append(f"- {cands[k].text}")
        for f in cands[i].followers[:MAX_ITEMS]:
            if cands[f].text not in quoted:
                quoted.add(cands[f].text)
                lines.append(f"  - {cands[f].text}")
    return lines


def overview(cands: Sequence[Candidate], *, limit: int, question: str = "") -> str:
    """A summary of the passages' main file (the one ``question`` names, if it names one): its
    central body sentences, a line per section (``summary``)."""
    return overview_reply(cands, limit=limit, label=LABEL, question=question)


def _one_pass(scorer: Scorer, ranking: Ranking, *, limit: int) -> list[int]:
    """The answer, then the other sentences near its score, in the passages' order."""
    scores, first = ranking.scores, ranking.chosen[0]
    near = sorted((i for i in range(len(scores)) if i != first
                   and scores[i] >= WIDE_FLOOR * scores[first]), key=lambda i: -scores[i])
    rest: list[int] = []
    for i in near:
        if len(rest) < 2 * limit - 1 and not any(scorer.same(i, j) for j in [first, *rest]):
            rest.append(i)
    return [first] + sorted(rest)


def _merge(scorer: Scorer, ranking: Ranking, *, limit: int) -> list[int]:
    """The best sentence of each passage (and of each part of the question), best first, with
    sentences that say the same thing across passages quoted once."""
    scores, first = ranking.scores, ranking.chosen[0]
    best_of: dict[int, int] = {}
    for i, cand in enumerate(scorer.cands):
        if scores[i] >= WIDE_FLOOR * scores[first]:
            if cand.passage not in best_of or scores[i] > scores[best_of[cand.passage]]:
                best_of[cand.passage] = i
    by_score = sorted(best_of.values(), key=lambda i: -scores[i])
    vectors = scorer.sentence_vectors()
    merged: list[int] = []
    for i in dict.fromkeys(by_score + ranking.chosen):
        if not any(_same_meaning(scorer, vectors, i, j) for j in merged):
            merged.append(i)
    return merged[: max(limit, len(best_of))]


def _same_meaning(scorer: Scorer, vectors: np.ndarray | None, i: int, j: int) -> bool:
    if scorer.same(i, j):
        return True
    return vectors is not None and float(vectors[i] @ vectors[j]) >= SAME_MEANING
