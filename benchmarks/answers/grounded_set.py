"""The grounded-answers question set: hand-made questions over the shared corpus, and the measures
that judge an answer against them.

Unlike ``question_set.py`` (issue 9's set, whose gold strings are mostly whole sentences), each
answerable question here names the short strings a correct answer must say *and* the sentence
of the document that states them, so a wrong answer can be traced to its stage: retrieval never
returned that sentence, the model was not shown it, or it had it and answered otherwise
(``diagnose``). Each line of ``grounded_questions.jsonl`` is one question, written by reading the
text ragcore's readers load from the files, before anything was tuned on it (a held-out judge):

    id          "g01", "g02" ...
    collection  the corpus subfolder it is about ("nist_pdfs", "rfcs" ...)
    kind        factoid       a short fact; gold = 1-3 alternative spellings, any one suffices
                list          an enumeration; gold = every item, all are needed
                unanswerable  on topic, but the documents never say; gold, files, sentence empty
                summary       an instruction to summarise; gold = 2-4 points a summary mentions
    question    the text asked, as a user would write it
    gold        exact substrings of the loaded text
    files       the files holding the gold, relative to the collection folder
    sentence    for factoid and list, the sentence (or heading) stating or announcing the answer;
                "" otherwise

Matching ignores whitespace, case, Markdown emphasis and code marks, and quote characters, on
both sides, so neither a reader's line breaks nor an answer's bold or curly quotes decide a score.
``tests/benchmarks/test_grounded_questions.py`` checks every gold string and sentence against the
files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from benchmarks.answers.question_set import read_questions

KINDS = ("factoid", "list", "unanswerable", "summary")
QUESTIONS_FILE = Path(__file__).with_name("grounded_questions.jsonl")
_FIELDS = ("id", "collection", "kind", "question", "gold", "files", "sentence")
# (least, most) gold strings per kind; None: no upper bound.
_GOLD_COUNTS = {"factoid": (1, 3), "list": (2, None), "unanswerable": (0, 0), "summary": (2, 4)}

# Markdown emphasis and code marks, quote characters, and the invisible joiners some e-books put
# inside words ("know\u2060—faddy"): none of them changes what an answer says.
_IGNORED = re.compile("[*`\"'\u2018\u2019\u201a\u201b\u201c\u201d\u201e\u00ab\u00bb"
                      "\u200b\u200c\u200d\u2060\ufeff]")

_NOT = r"(?:do|does|did)(?:\s+not|n['\u2019]?t)"
_REPORTING = (r"say|says|state|states|mention|mentions|contain|contains|specify|specifies|give|"
              r"gives|provide|provides|include|includes|list|lists|name|names|indicate|"
              r"indicates|answer|cover|covers|address|discuss|report|disclose")
_DOCUMENTS = (r"(?:the|these|those|any|this|your)\s+(?:\w+\s+)?(?:documents?|docs|sources?|"
              r"context|texts?|passages?|excerpts?|corpus|material|files?|pages?|publication)")
_REFUSALS = re.compile("|".join((
    rf"\b{_NOT}\s+(?:\w+\s+){{0,2}}(?:{_REPORTING})\b",
    r"\bnever\s+(?:\w+\s+)?(?:says?|stated?s?|mention(?:s|ed)?|specif(?:y|ies|ied)|named?s?)\b",
    # "is not stated." / "not given in the documents", but not a quote's "has not found anything"
    r"\bnot\s+(?:\w+\s+)?(?:found|stated|mentioned|named|given|specified|provided|included|listed|"
    rf"covered|addressed|answered|available|documented|disclosed|reported)(?:\W*$|\s+(?:\w+\s+)?"
    rf"(?:in|within|by|from)\s+{_DOCUMENTS})",
    rf"\bnot\s+(?:\w+\s+)?(?:in|within)\s+{_DOCUMENTS}\b",
    r"\bno\s+(?:\w+\s+)?(?:information|mention)\b|\bnothing\s+(?:about|on|regarding)\b",
    r"\b(?:cannot|can['\u2019]?t|could\s+not|couldn['\u2019]?t|unable\s+to)\s+"
    r"(?:find|answer|determine|locate|tell|say)\b",
)), re.IGNORECASE)

# A full stop after these is not a sentence end ("Dr. Watson's wife is not named.").
_ABBREVIATIONS = frozenset("mr mrs ms dr st sr jr prof no vs fig sec e.g i.e etc approx".split())
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]*]*(?:\s+|$)|\n")
_LEADING_MARKUP = re.compile(r"^(?:\s|#+|>|[-*+]\s|\d+[.)]\s)+")


@dataclass(frozen=True, slots=True)
class GroundedQuestion:
    """One question, the strings a grounded answer says, and the sentence that states them."""

    id: str
    collection: str
    kind: str
    question: str
    gold: tuple[str, ...]
    files: tuple[str, ...]
    sentence: str

    @property
    def answerable(self) -> bool:
        """False for "unanswerable" questions: the right answer is that the documents don't say."""
        return self.kind != "unanswerable"

    def paths(self, corpus: Path) -> list[Path]:
        """The named files inside ``corpus``."""
        return [corpus / self.collection / name for name in self.files]


def normalize(text: str) -> str:
    """``text`` without emphasis, code or quote marks, its whitespace runs one space, casefolded."""
    return " ".join(_IGNORED.sub("", text).split()).casefold()


def contains(text: str, strings: Iterable[str]) -> list[bool]:
    """For each of ``strings``, whether it occurs in ``text`` once both are normalized."""
    haystack = normalize(text)
    return [normalize(s) in haystack for s in strings]


def items_found(question: GroundedQuestion, answer_text: str) -> list[bool]:
    """Which gold items ``answer_text`` says: one flag per item for list and summary questions, a
    single flag for a factoid (any of its alternative spellings counts), none when unanswerable."""
    hits = contains(answer_text, question.gold)
    if question.kind == "factoid":
        return [any(hits)]
    return hits


def first_sentence(text: str) -> str:
    """The first sentence of ``text``, leading Markdown (headings, bullets, quotes) dropped."""
    text = _LEADING_MARKUP.sub("", text.strip())
    for end in _SENTENCE_END.finditer(text):
        words = text[:end.start()].split()
        last = words[-1].casefold().lstrip("(\"'*") if words else ""
        if end.group().strip() == "." and last in _ABBREVIATIONS:
            continue
        return text[:end.end()].strip()
    return text


def refused_first(answer_text: str) -> bool:
    """Whether the answer's first sentence says the documents don't state the answer ("The
    documents don't say ...", "Not found in the documents.", "... do not state ..."). Later
    sentences are not read: an answer that gives a fact and then hedges did answer."""
    return bool(_REFUSALS.search(_IGNORED.sub("", first_sentence(answer_text))))


def shown_text(answer: str, nodes: Sequence[Any], *, question: str, embedder: Any = None,
               judge: Any = None, held: Any = None) -> tuple[str, Any]:
    """What the Query page shows of ``answer`` over the retrieved ``nodes`` (the text its
    grounding verdict writes, as the app and the CLI write it; ``judge``: the LLM asked about
    the first claim; ``held``: whether the index holds a name beyond the passages), and the
    source listing it comes with."""
    from ragcore.present.markers import AnswerCheck

    checked = AnswerCheck(embedder=embedder, judge=judge, held=held)(answer, nodes,
                                                                     question=question)
    return checked.text, checked.listing


def diagnose(question: GroundedQuestion, retrieved_texts: Iterable[str],
             read_texts: Iterable[str]) -> dict[str, object]:
    """Where the answer's evidence got lost: whether each gold string and the stating sentence
    were among the passages retrieval returned and among those the model read (the prompt).

    The texts are joined before searching, so a sentence cut between two chunks that both came
    back still counts as present. ``missed_at`` names the first stage that lacked the evidence
    ("retrieval", "reading"), or is None when the model read all of it and for unanswerable
    questions. The evidence is every gold string plus the sentence, but for a factoid only its
    sentence (any spelling of the fact will do). The sentence flags are None without a sentence.
    """
    retrieved, read = " ".join(retrieved_texts), " ".join(read_texts)
    report: dict[str, object] = {
        "gold_retrieved": contains(retrieved, question.gold),
        "gold_read": contains(read, question.gold),
        "sentence_retrieved": None,
        "sentence_read": None,
        "missed_at": None,
    }
    evidence = list(question.gold)
    if question.sentence:
        report["sentence_retrieved"] = contains(retrieved, [question.sentence])[0]
        report["sentence_read"] = contains(read, [question.sentence])[0]
        evidence.append(question.sentence)
    if not evidence:
        return report
    if question.kind == "factoid":  # one spelling of the fact is enough evidence
        evidence = [question.sentence] if question.sentence else list(question.gold)
    if not all(contains(retrieved, evidence)):
        report["missed_at"] = "retrieval"
    elif not all(contains(read, evidence)):
        report["missed_at"] = "reading"
    return report


def load_questions(path: Path = QUESTIONS_FILE) -> list[GroundedQuestion]:
    """The questions of ``path``; ValueError naming the line and the problem if one is malformed
    (read as ``question_set`` reads its own)."""
    return read_questions(path, _question)


def _question(record: object, where: str) -> GroundedQuestion:
    if not isinstance(record, dict) or set(record) != set(_FIELDS):
        keys = sorted(record) if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{where}: expected exactly the fields {sorted(_FIELDS)}, got {keys}")
    for name in ("id", "collection", "kind", "question"):
        if not isinstance(record[name], str) or not record[name].strip():
            raise ValueError(f"{where}: {name} must be a non-empty string, got {record[name]!r}")
    for name in ("gold", "files"):
        value = record[name]
        if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
            raise ValueError(f"{where}: {name} must be a list of non-empty strings, got {value!r}")
    if not isinstance(record["sentence"], str):
        raise ValueError(f"{where}: sentence must be a string, got {record['sentence']!r}")
    kind = record["kind"]
    if kind not in KINDS:
        raise ValueError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    _check_kind(record, kind, where)
    return GroundedQuestion(record["id"], record["collection"], kind, record["question"],
                            tuple(record["gold"]), tuple(record["files"]), record["sentence"])


def _check_kind(record: dict, kind: str, where: str) -> None:
    least, most = _GOLD_COUNTS[kind]
    count = len(record["gold"])
    if count < least or (most is not None and count > most):
        wanted = f"{least}-{most}" if most is not None else f"at least {least}"
        if most == 0:
            wanted = "no"
        raise ValueError(f"{where}: {_a(kind)} question needs {wanted} gold strings, has {count}")
    if kind == "unanswerable":
        if record["files"] or record["sentence"]:
            raise ValueError(f"{where}: an unanswerable question needs empty files and sentence")
        return
    if not record["files"]:
        raise ValueError(f"{where}: {_a(kind)} question needs the files holding its gold strings")
    if kind in ("factoid", "list") and not record["sentence"].strip():
        raise ValueError(f"{where}: {_a(kind)} question needs the sentence stating its answer")


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"
