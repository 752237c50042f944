"""The grounding verdict: which claims of an answer the passages state, computed by ragcore.

Whatever wrote the answer (the packaged model, a server, the extractive answerer), each claim
(``claims.py``) is checked against every passage sentence with its neighbours (a window):

    feature    what it measures                                          weight sign
    coverage   share of the claim's content stems found in the window    +
    missing    facts of the claim (numbers, names, quoted or bold        -
               phrases: ``facts.py``) the window does not state
    elsewhere  facts no passage states at all                            -
    binding    each fact stands among the claim's (or question's) words   +
    agrees     the extractive reader's phrase for the question is in the  +
               claim (+1), or it is sure of one the claim lacks (-1)
    negation   the claim negates and the window does not, or the reverse -
    cosine     similarity of meaning to the window's best sentence, by   +
               the index's embedding model (when one is given)

Their logistic combination (``weights.Weights``: one for each path, with and without the embedder,
fitted on the fit half of the labelled claims of ``benchmarks/grounding``; its judge half
measures it) is the chance that the claim is supported. A claim is vouched for (supported)
from ``Weights.threshold``, set for a precision of "supported" of at least 95 % there; it is
taken for invented (refuted) when it states a fact no passage states, or a number where the
passage puts another ("returns at five" where it reads "returns at seven": ``placement``), or
its chance is below ``refute_threshold``; else it is unverified: neither vouched for nor
refused, since these features cannot tell (right paraphrases and wrong entities of the same
passage score alike). The answer's verdict follows its claims: ``supported`` when every claim
is, ``unsupported`` when all are refuted or its first claim (the short answer) is, ``partly``
when some are vouched for or refuted, ``unverified`` when none is either; ``refused`` for an
answer that says the documents do not hold it; ``empty`` when nothing in it makes a claim.
Similarity cannot tell agreement from contradiction, which is why facts weigh most: a claim
about the right sentence with the wrong number is not supported. With a judge (``judge.py``:
the packaged model's "Yes"), the first claim is asked about when these features leave it
undecided (a chance from the refute threshold to ``SURE_WITHOUT_JUDGE``, no fact missing or
displaced; not when ``located`` vouches for it by the sentence holding it, nor for a one-fact
short answer that sentence confirms: SQuAD runs 8/9 judged, what is shown unchanged, the check's
median 1.1 -> 0.2 s), with its numbers as the passage writes them. A claim a passage holds word
for word (``quoting_window``: a list item, or more than a short answer) is stated by it: sure,
and the judge is not asked (on the labelled claims no figure moves; on run 23's answers 15 of the 71
whose first claim went to the judge quote it: 10 lists, 4 factoids, 1 summary).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from .answer_type import REPEATS, mismatch, unshown, unstated_kind, wants_a_statement
from .agreement import NOTHING, Expected, agreement, expected_phrase
from .claims import SHORT_CLAIM_STEMS, Claim, Span, claims_of, sentence_spans, short_answer
from .facts import each_fact, missing_facts
from .judge import IN_PROMPT, can_judge, judge_claim, judged_text
from .kinds import QuestionKind, asks_one_fact, question_kind
from .located import decided, listed, restated, unmentioned
from .numbers import as_written_in
from .placement import displaced_facts
from .text import NEGATION, content_stems, fold
from .weights import WEIGHTS, Weights, logit, support_chance

SUPPORTED, PARTLY, UNVERIFIED, UNSUPPORTED, REFUSED, EMPTY = (
    "supported", "partly", "unverified", "unsupported", "refused", "empty")
# "The speech does not mention quantum computing.": the model's own words for "Not found in
# the documents.", with the documents named by their kind ("the paper", "the provided text").
_DOCUMENTS = (r"the (?:provided |given )?(?:documents?|passages?|context|text|speech|paper|"
              r"article|report|book|manual|guide|story|specification|sources?|information)")
_REFUSAL = re.compile(rf"^\W*(?:not found in the documents|{_DOCUMENTS} (?:do not|don't|does "
                      r"not|doesn't|did not|didn't) (?:say|state|contain|mention|answer|discuss)|"
                      r"there is no mention of|"
                      r"(?:i|we) (?:could not|couldn't|cannot|can't) find)", re.IGNORECASE)


# A chance the judge is not asked to confirm: on the labelled claims every claim scored this
# high with the embedder was right (11 of 11 on the fit half, 16 of 16 on the judge half).
SURE_WITHOUT_JUDGE = 0.95
# Nor is the judge asked about a claim its other features already take for invented (a chance
# below ``Weights.refute_threshold``): in the answer's own prompt the model tends to confirm
# what it wrote. On the labelled claims (in-prompt judge) invented claims refuted: fit half
# 78.1 -> 80.8 %, judge half 89.6 -> 90.9 %; right claims refuted 5.4 % (unchanged), 6.7 ->
# 7.6 %.

# A claim a passage holds word for word (``quoting_window``: at least this many words, and more
# than a short answer's unless a list item) is stated by it: vouched for as sure, no judge asked.
QUOTED_WORDS = 3

MAX_JUDGED = 1  # claims of one answer the judge reads: the first (each ~1-4 s on two cores)


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One claim's verdict: the chance it is supported, the passage sentences supporting it
    (passage position, span of that passage's text), and the facts no passage states."""

    claim: Claim
    supported: bool  # vouched for: the passages state it
    score: float
    support: tuple[tuple[int, Span], ...] = ()
    missing: tuple[str, ...] = ()
    features: dict[str, float] = field(default_factory=dict)
    refuted: bool = False  # taken for invented: facts no passage states, or a chance near 0
    # What the question asks for, when this short answer holds nothing of the kind ("a length
    # of time" for a "how long" answered "**245th year**"): not an answer, wherever it stands.
    off_question: str = ""
    # Numbers or names the passage states beside other words ("returns at five" written
    # "returns at seven", ``placement``): the claim contradicts it, so is taken for invented.
    displaced: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return self.claim.text


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer's grounding: its label, each claim's check, and how support was judged."""

    label: str
    claims: tuple[ClaimCheck, ...] = ()
    measure: str = ""
    unmentioned: tuple[str, ...] = ()  # what the question names and the documents do not

    @property
    def unsupported_claims(self) -> tuple[ClaimCheck, ...]:
        """The claims taken for invented (unverified ones are neither vouched for nor these)."""
        return tuple(c for c in self.claims if c.refuted)

    def as_dict(self) -> dict[str, Any]:
        """What the trace notes keep: the label and each claim's text, verdict and score."""
        return {"label": self.label, "measure": self.measure, "claims": [
            {"text": c.text, "supported": c.supported, "refuted": c.refuted,
             "score": round(c.score, 3), "missing": list(c.missing),
             **({"displaced": list(c.displaced)} if c.displaced else {}),
             **({"off_question": c.off_question} if c.off_question else {})}
            for c in self.claims]}


@dataclass(slots=True)
class _Window:
    passage: int
    span: Span  # the centre sentence, in the passage's text
    text: str  # the centre sentence with its neighbours
    stems: frozenset[str]
    negated: bool
    sentence: str = ""  # the centre sentence alone
    sentence_stems: frozenset[str] = frozenset()


def is_refusal(answer: str) -> bool:
    """True when the answer's first sentence says the documents do not hold the answer."""
    return bool(_REFUSAL.match(answer.strip()))


def check_answer(answer: str, passages: Sequence[str], *, list_items: bool = False,
                 embedder: Any = None, weights: Weights = WEIGHTS,
                 question: str = "", judge: Any = None, subjects: Sequence[str] = (),
                 held: Callable[[str], bool] | None = None) -> Verdict:
    """The verdict on ``answer`` against ``passages`` (texts, in the order they are cited).

    ``list_items`` (a list question) checks each item of a listing sentence on its own;
    ``embedder`` (anything with ``embed_batch``: the index's model) adds similarity of meaning;
    ``subjects`` (the passages' documents' titles) name what the documents are about; ``held``
    says whether the index holds a name beyond the passages (``located.unmentioned``).
    """
    subjects = tuple(sorted(set(subjects)))
    # read by a one-fact answer's decision and a refusal's wording only
    absent = (tuple(unmentioned(question, passages, subjects, held)) if question.strip() and (
        asks_one_fact(question) or is_refusal(answer)) else ())
    measure = _measure(embedder)
    if is_refusal(answer):
        return Verdict(REFUSED, measure=measure, unmentioned=absent)
    # A refusal inside an answer ("**150**. Not found in the documents.") claims nothing.
    written = claims_of(answer, split_items=list_items)
    claims = [c for c in written if not is_refusal(c.text)]
    doubted = len(claims) < len(written)  # "**47**. Not found in the documents."
    if not claims:
        return Verdict(EMPTY, measure=measure, unmentioned=absent)
    off = _off_question(claims, question)
    if off == REPEATS and len(claims) > 1 and wants_a_statement(question):
        # "**Greenhouses**. Greenhouses were first used to ...": the lead only restates what
        # was asked; the sentence after it answers, and is what is checked.
        claims, off = claims[1:], ""
    if not off:  # money or a count the passages do not give as one, a heading
        off = unstated_kind(question, claims[0].text, passages, short=short_answer(claims[0]),
                            factoid=not claims[0].item
                            and question_kind(question) is QuestionKind.FACTOID)
    # A lead of another kind than asked is refused whatever a judge says: none is asked.
    judging = judge if not off and judge is not None and can_judge(judge) else None
    checks = check_claims(claims, passages, embedder=embedder, weights=weights,
                          question=question, answer=answer)
    if off:
        checks[0] = replace(checks[0], supported=False, refuted=True, support=(),
                            off_question=off)
    else:  # an answer to one fact still undecided is vouched for where located, or not
        lead = restated(checks, question)
        located = decided(lead, passages, question, subjects, bool(absent), doubted)
        first = checks[0]
        if (judging is not None and _judged(first.score, first.missing, first.displaced, weights)
                and not (located.supported and (not lead.supported or (
                    short_answer(located.claim) and asks_one_fact(question))))):
            lead = restated([*check_claims(claims[:1], passages, embedder=embedder,
                                           weights=weights, question=question, judge=judging,
                                           answer=answer), *checks[1:]], question)
            located = decided(lead, passages, question, subjects, bool(absent), doubted)
        checks[0] = located
    if question.strip() and question_kind(question) is QuestionKind.LIST:
        checks = [listed(check, passages, question, subjects) for check in checks]
    if judge is not None and can_judge(judge):
        measure += f", and {getattr(judge, 'model', 'the model')} asked whether each passage " \
                   "states it"
    return Verdict(_label(checks), tuple(checks), measure, absent)


def check_claims(claims: Sequence[Claim], passages: Sequence[str], *, embedder: Any = None,
                 weights: Weights = WEIGHTS, question: str = "", judge: Any = None,
                 max_judged: int = MAX_JUDGED, answer: str = "") -> list[ClaimCheck]:
    """Each claim's check against the sentence windows of ``passages`` (``question``: what the
    claims answer, the context of a short answer's facts); with ``judge`` (an LLM that can,
    ``judge.can_judge``) the first ``max_judged`` claims are also judged by it, in the prompt
    that wrote ``answer`` when it still has it."""
    judge = judge if judge is not None and can_judge(judge) else None
    windows = _windows(passages)
    everything = "\n".join(passages)
    cosines = _cosines(claims, windows, embedder)
    asked = content_stems(question)
    expected = (expected_phrase(passages, question, embedder=embedder) if question.strip()
                else NOTHING)
    return [_check(claim, windows, everything, None if cosines is None else cosines[i], weights,
                   asked, _agrees(claim, i, expected), judge if i < max_judged else None,
                   passages, answer) for i, claim in enumerate(claims)]


def _off_question(claims: Sequence[Claim], question: str) -> str:
    """What ``question`` asks for, when the answer's first claim is a short answer of another
    kind (``answer_type``): the nearest phrase of the passages, not an answer; or when an
    answer in sentences shows nothing of that kind ("NIST has many employees ..." for a count);
    else ""."""
    if not question.strip():
        return ""
    if short_answer(claims[0]):
        return mismatch(question, claims[0].text)
    return unshown(question, " ".join(claim.text for claim in claims))


def _agrees(claim: Claim, position: int, expected: Expected) -> float:
    """The reader's agreement, for the claims that answer the question: the first one and the
    short ones (a later sentence of support states other facts)."""
    if position == 0 or claim.item or len(claim.stems) <= SHORT_CLAIM_STEMS:
        return agreement(claim.stems, expected)
    return 0.0


def claim_features(claim: Claim, window: _Window, nowhere: Sequence[str],
                   cosine: float | None, binding: float = 1.0,
                   agrees: float = 0.0) -> dict[str, float]:
    """The features of ``claim`` against one window (see the module docstring); ``nowhere``
    (its facts no passage states), ``binding`` (``fact_binding``) and ``agrees``
    (``agreement.agreement``) are the claim's."""
    stems = set(claim.stems)
    coverage = len(stems & window.stems) / len(stems) if stems else 1.0
    missing = missing_facts(claim.facts.placed(), window.text)
    if claim.item or len(stems) <= SHORT_CLAIM_STEMS:  # a short claim is all facts: every word
        missing += sorted(stems - window.stems)
    elsewhere = list(nowhere) if missing else []
    negated = bool(NEGATION.search(fold(claim.text)))
    features = {"coverage": coverage, "missing": float(len(missing)),
                "elsewhere": float(len(elsewhere)), "negation": float(negated != window.negated),
                "binding": binding, "agrees": agrees}
    if cosine is not None:
        features["cosine"] = cosine
    return features


def fact_binding(claim: Claim, sentences: Sequence[tuple[str, frozenset[str]]],
                 asked: Sequence[str] = ()) -> float:
    """How well the claim's facts stand where the rest of the claim is: for each fact, the best
    share of the claim's other words in one sentence stating that fact; the lowest over facts
    (1 with no facts, 0 for a fact no sentence states). A number taken from the sentence next
    door ("80" where the claim's sentence says 40) stands among other words. A short claim
    ("**Dvořák**") has few other words: the question's (``asked``) stand in for them."""
    lowest = 1.0
    short = claim.item or len(claim.stems) <= SHORT_CLAIM_STEMS
    for fact, own in each_fact(claim.facts):
        # A list item stands under its heading, not beside the question's words.
        others = set() if claim.item else (
            (set(asked) if short and asked else set(claim.stems)) - own)
        best = 0.0
        for sentence, stems in sentences:
            if missing_facts(fact, sentence):
                continue
            best = max(best, len(others & stems) / len(others) if others else 1.0)
        lowest = min(lowest, best)
    return lowest


def _check(claim: Claim, windows: list[_Window], everything: str, cosines: Any,
           weights: Weights, asked: Sequence[str] = (), agrees: float = 0.0,
           judge: Any = None, passages: Sequence[str] = (), answer: str = "") -> ClaimCheck:
    if not windows:
        return ClaimCheck(claim, False, 0.0, missing=tuple(missing_facts(claim.facts, "")))
    binding = fact_binding(claim, [(w.sentence, w.sentence_stems) for w in windows], asked)
    missing = tuple(missing_facts(claim.facts, everything))  # stated by no passage
    scored = []
    for position, window in enumerate(windows):
        cosine = None if cosines is None else float(cosines[position])
        features = claim_features(claim, window, missing, cosine, binding, agrees)
        scored.append((support_chance(features, weights), position, features))
    best, at, features = max(scored, key=lambda s: s[0])
    threshold, refute = weights.threshold(cosines is not None), weights.refute_threshold
    displaced = () if missing else tuple(displaced_facts(
        claim.text, claim.facts, [w.sentence for w in windows], asked,
        short=not claim.item and len(claim.stems) <= SHORT_CLAIM_STEMS, item=claim.item))
    quoting = (quoting_window(claim, windows) if not missing and not displaced
               and best < SURE_WITHOUT_JUDGE else None)
    if quoting is not None:  # a quotation is stated by what it quotes: sure, no judge asked
        best, at, features = SURE_WITHOUT_JUDGE, quoting, scored[quoting][2]
        scored = [(best, at, features)]
    if judge is not None and _judged(best, missing, displaced, weights):
        window = windows[at]
        # its numbers as the passage writes them: asked "as written", the model says No to
        # "300 pounds" where the passage says "three hundred pounds"
        passage = passages[window.passage]
        judged = judge_claim(judge, judged_text(passage, window.span),
                             as_written_in(claim.text, passage), answer=answer)
        features = {k: v for k, v in features.items() if k != "cosine"}
        if judged.way == IN_PROMPT and weights.in_prompt:
            features["in_prompt"] = logit(judged.share)
            threshold, refute = weights.in_prompt_threshold, weights.in_prompt_refute
        else:
            features["judge"] = logit(judged.share)
            threshold, refute = weights.judged_threshold, weights.judged_refute
        best = support_chance(features, weights)
        scored = [(best, at, features)]
    # A fact no passage states, or a number it states beside other words: never vouched for.
    supported = best >= threshold and not missing and not displaced
    support = tuple((windows[p].passage, windows[p].span) for score, p, _ in scored
                    if supported and score >= max(threshold, best - 0.05))
    refuted = not supported and (bool(missing) or bool(displaced) or best < refute)
    return ClaimCheck(claim, supported, best, support, missing, features, refuted,
                      displaced=displaced)


def _judged(score: float, missing: Sequence[str], displaced: Sequence[str],
            weights: Weights) -> bool:
    """Whether a judge is asked about a claim its features score ``score``: undecided between
    the refute threshold and ``SURE_WITHOUT_JUDGE``, no fact missing or displaced."""
    return (weights.judged and not missing and not displaced
            and weights.refute_threshold <= score < SURE_WITHOUT_JUDGE)


def quoting_window(claim: Claim, windows: Sequence[_Window]) -> int | None:
    """The first window (a passage sentence with its neighbours) that holds ``claim`` word for
    word, case, punctuation and markup aside: a list item, or a claim longer than a short
    answer, of at least ``QUOTED_WORDS`` words; None when none does."""
    if not claim.item and len(claim.stems) <= SHORT_CLAIM_STEMS:
        return None
    wanted = _words(claim.text)
    if len(wanted.split()) < QUOTED_WORDS:
        return None
    return next((i for i, w in enumerate(windows) if f" {wanted} " in f" {_words(w.text)} "),
                None)


@lru_cache(maxsize=8192)  # every window is read once per claim of an answer
def _words(text: str) -> str:
    """``text``'s folded words, one space apart: what a quotation is matched on."""
    return " ".join(re.findall(r"\w+", fold(text)))


def _label(checks: Sequence[ClaimCheck]) -> str:
    if all(c.supported for c in checks):
        return SUPPORTED
    lead = checks[0]
    if all(c.refuted for c in checks) or (lead.refuted and not lead.claim.item):
        return UNSUPPORTED
    return PARTLY if any(c.supported or c.refuted for c in checks) else UNVERIFIED


def _windows(passages: Sequence[str]) -> list[_Window]:
    """Every passage sentence with the sentence before and after it."""
    windows = []
    for position, text in enumerate(passages):
        spans = sentence_spans(text, wrapped=True)
        for i, span in enumerate(spans):
            start = spans[max(0, i - 1)][0]
            end = spans[min(len(spans) - 1, i + 1)][1]
            joined = text[start:end]
            centre = text[span[0]:span[1]]
            windows.append(_Window(position, span, joined, frozenset(content_stems(joined)),
                                   bool(NEGATION.search(fold(centre))), centre,
                                   frozenset(content_stems(centre))))
    return windows


def _cosines(claims: Sequence[Claim], windows: list[_Window], embedder: Any) -> Any:
    """Claims x windows cosine of meaning (the window's centre sentence), or None."""
    if embedder is None or not windows or not claims:
        return None
    sentences = [w.text for w in windows]
    vectors = np.asarray(embedder.embed_batch([*(c.text for c in claims), *sentences]),
                         dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1.0, norms)
    return vectors[: len(claims)] @ vectors[len(claims):].T


def _measure(embedder: Any) -> str:
    if embedder is None:
        return "the claim's facts and words found in a passage sentence and its neighbours"
    name = getattr(embedder, "model_name", "") or "the index's embedding model"
    return f"the claim's facts and words in a passage sentence, and its meaning by {name}"

