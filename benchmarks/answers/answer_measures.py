"""The measures of issue 19 for one question set, beside a best-word-overlap baseline.

Each question asked through a query engine becomes a ``Record``: the answer as the user gets it,
the passages given to the answerer, whether the gold (a SQuAD paragraph, a corpus gold string)
is among them, and the baseline's answer: the sentence of those same passages sharing the most
question words (ties: the earlier one, passages in retrieval order). ``measures`` turns records
into the issue's rows, for the answerer and for the baseline:

- gold among the passages (answerable questions; the baseline reads the same passages);
- short answer exact match and token F1 (SQuAD's, best gold; ``Record.short_scored`` questions):
  the short answer is the bold phrase of the label line (``short_answer_of``), else the text of
  the first quoted line, "" when the answer says "not found"; a language model's answer (no
  label) gives the bold phrase of its first sentence, else that sentence; the baseline's is its sentence;
  and whether the short answer lies inside a gold answer (partial credit where the gold is a
  whole sentence, as for the corpus questions: the phrase comes from the right sentence);
- whole answer contains a gold answer (normalized, whole words): all answerable questions, and
  those whose gold was among the passages;
- answer words, median and p90 over answerable questions, counted as the user reads the answer
  but WITHOUT the label prefix "Extractive answer (no language model configured):",
  the same chrome on every answer (the short answer and the quotes count, "- " marks do not);
- false "not found" on answerable questions and "not found" (abstention) on unanswerable ones:
  the answer's own first line, after the label, starts with "not found" or says it does not
  know (``UNKNOWN_PHRASES``); the baseline always answers;
- how well the answerer's score (``Record.score``: the trace note ``answer_score``) ranks
  answerable questions above unanswerable ones (ROC AUC: 50 % is chance), whatever the
  "not found" threshold; "-" when answers state no score;
- seconds per question, median and p90: ``engine.query`` after the index and model are loaded.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from statistics import median
from typing import Sequence

from .squad import contains_gold, exact_match, token_f1

_LABEL_PREFIX = re.compile(r"^Extractive answer \(no language model configured\):[ \t]*")
_QUOTE = re.compile(r"^\s*[-*] (.*)$")
UNKNOWN_PHRASES = (
    "found nothing", "nothing to quote", "no passages came", "cannot answer", "can't answer",
    "unable to answer", "don't know", "do not know", "no relevant", "not in the documents",
    "no information", "do not say", "does not say", "doesn't say", "do not mention",
    "does not mention", "not mentioned",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9])|\n\s*\n")
_WORD = re.compile(r"[^\W_]+")
_STOPWORDS = frozenset(
    "a an the and or but of to in on at by for with from as into about than then is are was were "
    "be been being do does did has have had it its this that these those there their they them he "
    "she his her him we you your our i me my what which who whom whose when where why how much "
    "many did does can could would should will shall may might must not no".split())


@dataclass(slots=True)
class Record:
    """One question's answer, passages and gold, ready to be measured."""

    id: str
    question: str
    golds: list[str]  # empty for an unanswerable question
    answer: str
    passages: list[str]
    retrieved: bool  # the gold paragraph / a gold string is among the passages
    seconds: float
    short_scored: bool = True  # counts in exact match and token F1
    baseline: str = field(default="")
    score: float | None = None  # the answerer's score (its trace note), None if it stated none

    def __post_init__(self) -> None:
        # Rows recorded before issue 32 hold the score on the answer's label line.
        from ragcore.llms.extractive.answer import split_old_score

        self.answer, old = split_old_score(self.answer)
        if self.score is None:
            self.score = old

    @property
    def answerable(self) -> bool:
        return bool(self.golds)


def timed_query(engine, question: str):
    """``engine.query(question)``, its text and the seconds it took (the answerer's score is
    in ``response.trace.notes``: ``stated_score``)."""
    started = time.perf_counter()
    response = engine.query(question)
    text = response.text
    return response, text, time.perf_counter() - started


def answer_body(answer: str) -> str:
    """The answer without its fixed label prefix."""
    return _LABEL_PREFIX.sub("", answer.strip(), count=1)


def says_not_found(answer: str) -> bool:
    """Whether the answerer's own words (its first line, after the label) say "not found", or
    open with a refusal as the grounding verdict reads one (``is_refusal``: "**Not found in the
    documents.**", the packaged model's reply begun with "**"; not "**Not Found**.", HTTP's
    404)."""
    from ragcore.grounding import is_refusal

    first = answer_body(answer).split("\n", 1)[0].strip()
    folded = first.casefold()
    return (folded.startswith("not found") or any(p in folded for p in UNKNOWN_PHRASES)
            or is_refusal(first))


def short_answer(answer: str) -> str:
    """The bold short answer, else the first quote's text; "" when the answer says not found."""
    from ragcore.llms.extractive.answer import short_answer_of  # the format's own reader

    if says_not_found(answer):
        return ""
    bold = short_answer_of(answer)
    if bold:
        return bold
    if not _LABEL_PREFIX.match(answer.strip()):  # a language model's answer, read as a user does
        return model_short_answer(answer)
    quotes = [m.group(1) for line in answer.splitlines()[1:] if (m := _QUOTE.match(line))]
    return quotes[0].strip() if quotes else answer_body(answer).split("\n", 1)[0]


_BOLD = re.compile(r"\*\*(.+?)\*\*")


def model_short_answer(answer: str) -> str:
    """A model's short answer: the bold phrase of its first sentence, else that sentence."""
    first = " ".join(_SENTENCE_END.split(answer.strip(), maxsplit=1)[0].split())
    bold = _BOLD.search(first)
    return bold.group(1).strip() if bold else first


def answer_words(answer: str) -> int:
    """Words the user reads, the label prefix and list marks left out."""
    return sum(1 for w in answer_body(answer).split() if w not in ("-", "*"))


def sentences(passage: str) -> list[str]:
    """``passage`` cut at sentence ends and blank lines, whitespace collapsed."""
    return [" ".join(s.split()) for s in _SENTENCE_END.split(passage) if s.strip()]


def content_words(text: str) -> set[str]:
    return {w for w in map(str.casefold, _WORD.findall(text)) if w not in _STOPWORDS}


def best_overlap_sentence(question: str, passages: Sequence[str]) -> str:
    """The sentence of ``passages`` sharing the most content words with ``question``."""
    asked = content_words(question)
    best, best_shared = "", -1
    for sentence in (s for p in passages for s in sentences(p)):
        shared = len(asked & content_words(sentence))
        if shared > best_shared:
            best, best_shared = sentence, shared
    return best


MEASURES = (  # name, unit, target of issue 19
    ("gold among the passages given to the answerer", "%", ""),
    ("short answer exact match", "%", ""),
    ("short answer token F1", "", ">= 50"),
    ("... on questions that ask for a phrase (who, when, how many, which X)", "", ""),
    ("short answer lies inside a gold answer", "%", ""),
    ("whole answer contains a gold answer", "%", ""),
    ("... when the gold was among the passages", "%", ">= 90"),
    ("answer words, median", "words", "<= 30"),
    ("answer words, p90", "words", ""),
    ("false 'not found' on answerable", "%", "<= 5"),
    ("'not found' on unanswerable (abstention)", "%", ">= 60"),
    ("score ranks answerable over unanswerable (AUC)", "%", ""),
    ("seconds per question, median", "s", "< 0.5"),
    ("seconds per question, p90", "s", ""),
)


def measures(records: Sequence[Record], *, baseline: bool = False) -> dict[str, float | None]:
    """The rows of ``MEASURES`` for the answerer (or the baseline); None where none applies."""
    answerable = [r for r in records if r.answerable]
    found = [r for r in answerable if r.retrieved]
    scored = [r for r in answerable if r.short_scored]
    factoid = [r for r in scored if asks_for_phrase(r.question)]
    text = (lambda r: r.baseline) if baseline else (lambda r: r.answer)  # noqa: E731
    short = (lambda r: r.baseline) if baseline else (lambda r: short_answer(r.answer))  # noqa
    nothing = (lambda r: False) if baseline else (lambda r: says_not_found(r.answer))  # noqa
    words = [len(r.baseline.split()) if baseline else answer_words(r.answer) for r in answerable]
    seconds = [] if baseline else [r.seconds for r in records]
    values = [
        _share([r.retrieved for r in answerable]),
        _share([exact_match(short(r), r.golds) for r in scored]),
        _share([token_f1(short(r), r.golds) for r in scored]),
        _share([token_f1(short(r), r.golds) for r in factoid]),
        _share([any(contains_gold(g, [short(r)]) for g in r.golds) for r in scored]),
        _share([contains_gold(text(r), r.golds) for r in answerable]),
        _share([contains_gold(text(r), r.golds) for r in found]),
        _quantile(words, 0.5), _quantile(words, 0.9),
        _share([nothing(r) for r in answerable]),
        _share([nothing(r) for r in records if not r.answerable]),
        None if baseline else score_auc(records),
        _quantile(seconds, 0.5), _quantile(seconds, 0.9),
    ]
    return {name: value for (name, _, _), value in zip(MEASURES, values)}


def asks_for_phrase(question: str) -> bool:
    """Whether the answerer reads ``question`` as one a phrase answers (not why, how, lists or
    definitions, which it answers with sentences)."""
    from ragcore.llms.extractive.span import answer_type

    return answer_type(question) is not None


def score_auc(records: Sequence[Record]) -> float | None:
    """The chance (%) that an answerable question's stated score beats an unanswerable one's."""
    scores = [(r.score, r.answerable) for r in records]
    if not scores or any(score is None for score, _ in scores):
        return None
    good = [score for score, answerable in scores if answerable]
    bad = [score for score, answerable in scores if not answerable]
    wins = [(g > b) + 0.5 * (g == b) for g in good for b in bad]
    return _share(wins)


def _share(values: Sequence[float | bool]) -> float | None:
    return 100.0 * sum(values) / len(values) if values else None


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    if q == 0.5:
        return float(median(values))
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))])


def markdown_table(title: str, ours: dict[str, float | None], base: dict[str, float | None],
                   before: dict[str, float | None] | None = None) -> str:
    """The issue's layout: a row per measure, the answerer beside the baseline (and after the
    figures before issue 19, when given)."""
    first = "| measure | before issue 19 " if before else "| measure "
    lines = [f"**{title}**", "", f"{first}| ragcore now | best-word-overlap sentence (baseline) |",
             "|---" * (4 if before else 3) + "|"]
    for name, unit, _ in MEASURES:
        other = "same passages" if name.startswith("gold among") else _cell(base[name], unit)
        then = f" {_cell(before.get(name), unit)} |" if before else ""
        lines.append(f"| {name} |{then} {_cell(ours[name], unit)} | {other} |")
    return "\n".join(lines)


def _cell(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "%":
        return f"{value:.1f} %"
    if unit == "s":
        return f"{value:.3f} s"
    return f"{value:.1f}" if unit == "" else f"{value:.0f}"
