"""Whether a passage sentence holds an answer: what of the answer it must hold, and whether it
does.

A short answer is held by a sentence holding each of its content words the question lacks and
its written forms ("--text"); a sentence answer by the words it adds to the question ("The short
form of the `--text` flag is `-a`." by "-a"); and either by its facts (numbers, names, quoted or
bold phrases: ``facts``) but those the question states itself. What the question names is the
question's, not the answer's: "The grace period of a Chubby client is **45 seconds** by
default." is held by "The client waits a further interval called the grace period, 45s by
default.", whose sentence before names the Chubby client. ``located`` reads these to locate an
answer, the presentation to keep a refusal from quoting the answer it did not show.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from .answer_type import written_forms
from .claims import Claim, Span, short_answer
from .facts import Facts, missing_facts
from .text import content_stems


class Check(Protocol):
    """What these rules read of a claim's check (``verdict.ClaimCheck``, a frozen dataclass)."""

    claim: Claim
    supported: bool
    refuted: bool
    score: float
    support: tuple[tuple[int, Span], ...]
    off_question: str  # what was asked, when the short answer holds nothing of it
    missing: tuple[str, ...]  # its facts no passage window states
    displaced: tuple[str, ...]  # its facts a passage states beside other words


def what_locates(claim: Claim, short: bool, question: str) -> tuple[set[str], tuple[str, ...]]:
    """What a sentence holds that states an answer: a short answer's every content word and
    each written form the question lacks, stated as written ("--text" for "... as if they were
    plain text?"); a sentence answer's words the question lacks ("The short form of the
    `--text` flag is `-a`." is located by "-a" where a sentence states the question)."""
    asked = set(content_stems(question))
    if not short:
        return set(claim.stems) - asked, ()
    # the question's own words need not be restated ("**Baldwin's nephew** was Arnulf."): what
    # the answer adds must
    return (set(claim.stems) - asked or set(claim.stems),
            tuple(f for f in written_forms(claim.text) if f not in question))


def holds_answer(lead: Check, question: str, sentence: str) -> bool:
    """Whether ``sentence`` holds the answer ``lead`` gives to ``question``: a short answer's
    facts and words, or what a sentence answer adds to the question."""
    short = short_answer(lead.claim)
    stems, forms = what_locates(lead.claim, short, question)
    return bool(stems or forms or lead.claim.facts) and holds(lead, stems, forms, sentence,
                                                              question)


def holds(lead: Check, stems: set[str], forms: Sequence[str], sentence: str,
          question: str) -> bool:
    """Whether ``sentence`` holds the answer: its facts the question does not state, its
    written forms as written, and every content word (``stems``). A name the question gives is
    the question's, not the answer's: "The grace period of a Chubby client is **45 seconds** by
    default." is held by "The client waits a further interval called the grace period, 45s by
    default.", whose sentence before names the Chubby client."""
    if not (stems <= set(content_stems(sentence)) and all(f in sentence for f in forms)):
        return False
    # the question's facts are read only where the sentence lacks one (most sentences lack none)
    missing = set(missing_facts(lead.claim.facts, sentence)) if lead.claim.facts else set()
    return not (missing and missing - set(stated_by(question, lead.claim.facts)))


def stated_by(question: str, facts: Facts) -> list[str]:
    """The facts of ``facts`` that ``question`` states itself (in ``missing_facts``' words)."""
    if not question.strip():
        return []
    return sorted(set(missing_facts(facts, "")) - set(missing_facts(facts, question)))
