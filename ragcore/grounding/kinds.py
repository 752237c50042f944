"""What kind of question this is, decided once: each kind has its own path to an answer.

    kind        asks for                                   its path
    factoid     one fact: a name, number, date, term       the not-found gate may refuse; the
                                                           short answer in bold, then its sentence
    list        the items of an enumeration                never refused by the gate; the items as
                                                           the documents state them, each cited;
                                                           a larger reading budget (all items)
    summary     an overview, "what does X say about Y",    never refused by the gate; a larger
                an instruction ("Summarise.", "Explain")   reading budget
    comparison  how two things differ or agree             as summary
    document    the document itself: who wrote it, when,   answered from the document's card
                what it is                                 (``ragcore.cards``), never refused

No model and no I/O: a few patterns over the question's words (a document question is
``ragcore.cards.asks_about_document``'s to tell, a list question the extractive answerer's
``asks_for_list``: one detector each, shared with what reads them), so the kind can be shown in the
trace before anything is read, and the same question always takes the same path. The reading
budget of each kind is a share of the model's base budget (``KindProfile.reading_share``): a
four-item list under four headings does not fit the ~200 tokens a fact needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from ..cards import asks_about_document
from ..llms.extractive.question import asks_for_list


class QuestionKind(str, Enum):
    FACTOID = "factoid"
    LIST = "list"
    SUMMARY = "summary"
    COMPARISON = "comparison"
    DOCUMENT = "document"


@dataclass(frozen=True, slots=True)
class KindProfile:
    """How a kind is answered: whether the factoid gate may refuse it, and its reading budget as
    a share of the model's base budget."""

    gated: bool
    reading_share: float
    # Whether its sentences are read from the whole pool retrieved for a budgeted reader (a
    # fact stands in one sentence, wherever it ranks) or from the top-k passages alone (a list
    # or a summary is read from the passages ranked first, whole).
    pooled: bool = False


PROFILES = {
    QuestionKind.FACTOID: KindProfile(True, 1.0, pooled=True),
    QuestionKind.LIST: KindProfile(False, 2.5),
    QuestionKind.SUMMARY: KindProfile(False, 2.5),
    QuestionKind.COMPARISON: KindProfile(False, 2.5),
    QuestionKind.DOCUMENT: KindProfile(False, 1.0),
}

_WORD = re.compile(r"[A-Za-z0-9]+(?:['’][a-z]+)?")
_SUMMARY_START = re.compile(
    r"^\s*(?:please\s+|can you\s+|could you\s+)?(?:summari[sz]e|sum up|give (?:me )?(?:an? )?"
    r"(?:(?:short|brief|quick|concise|general|rough|high[- ]level)\s+)*(?:overview|summary|"
    r"outline)|outline|describe|explain|tell me about|walk me through|"
    r"discuss|characteri[sz]e|review)\b", re.IGNORECASE)
_SUMMARY_ANY = re.compile(
    r"\b(?:summary|summari[sz]e|overview|gist|main (?:points|ideas|topics)|key (?:points|ideas|"
    r"takeaways)|what (?:does|do|did) .{2,80}? (?:say|said|state|recommend|suggest|cover|"
    r"describe|propose) (?:about|on|regarding|for)\b|what is .{2,60}? about\b)", re.IGNORECASE)
_COMPARISON = re.compile(
    r"\b(?:compare|comparison|contrast|differ(?:s|ence|ences)?|distinguish|versus|vs\.?|"
    r"similarit(?:y|ies)|in common)\b|\bhow (?:is|are|does|do) .{2,60}? (?:different|similar)\b",
    re.IGNORECASE)

def question_kind(question: str) -> QuestionKind:
    """The kind of ``question`` (see the module docstring); factoid when nothing else fits."""
    text = " ".join(question.split())
    if not _WORD.search(text):
        return QuestionKind.SUMMARY  # "?" or "..." asks for nothing in particular
    if _SUMMARY_START.search(text):  # "Summarise the document" asks for its contents
        return QuestionKind.SUMMARY
    if asks_about_document(text):
        return QuestionKind.DOCUMENT
    if _COMPARISON.search(text):
        return QuestionKind.COMPARISON
    if asks_for_list(text):
        return QuestionKind.LIST
    if _SUMMARY_START.search(text) or _SUMMARY_ANY.search(text) or _is_bare_instruction(text):
        return QuestionKind.SUMMARY
    return QuestionKind.FACTOID


# A second request joined to a list question ("List the four groups of SSDF practices and
# explain why each matters for a small startup."): it asks about the items, in words a passage
# naming them need not say
_SECOND_REQUEST = re.compile(
    r"(?:[,;]\s*|\s+)(?:and|then)\s+(?:also\s+)?(?:explain|describe|say|tell|give|state|"
    r"discuss|note|summari[sz]e|compare|show|why|how)\b", re.IGNORECASE)


def list_part(question: str) -> str:
    """What a list question asks to be listed: the question up to a second request joined to it
    ("List the four groups of SSDF practices" of "... and explain why each matters for a small
    startup."); the whole question otherwise, and for any other kind."""
    if question_kind(question) is not QuestionKind.LIST:
        return question
    second = _SECOND_REQUEST.search(question)
    return question[:second.start()] if second and second.start() > 0 else question


def asks_one_fact(question: str) -> bool:
    """Whether ``question`` is answered by one fact: a factoid, or what a document says of
    itself ("Who wrote PEP 492?"), stated in one sentence of a passage or of a card. Its answer
    is decided (vouched for, or "The documents don't say ..."), never left to check. What a
    document is about, or its summary ("What is this paper about?", "the gist of PEP 20"), is
    no one fact: it is checked claim by claim, never refused whole."""
    kind = question_kind(question)
    return kind is QuestionKind.FACTOID or (
        kind is QuestionKind.DOCUMENT and not _SUMMARY_ANY.search(" ".join(question.split())))


def profile(kind: QuestionKind) -> KindProfile:
    return PROFILES[kind]


def _is_bare_instruction(text: str) -> bool:
    """A request with no question in it and no topic words beyond an overview ("Summarise.",
    "Key points please", "The main ideas")."""
    words = [w.lower() for w in _WORD.findall(text)]
    return not text.rstrip().endswith("?") and len(words) <= 2 and not any(
        w in ("who", "what", "when", "where", "which", "how", "why") for w in words)
