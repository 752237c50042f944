"""Grounding: is an answer what the documents say? Decided by ragcore, for every backend.

Two questions, one package: what kind of question was asked (``kinds``: factoid, list, summary,
comparison, document), which decides the path to an answer; and which claims of the answer the
passages state (``verdict``, built on ``claims`` and ``facts``), which decides what a person is
shown. ``nearest`` words the reply when the documents do not say it. No model is needed; the
index's embedding model, when given, adds similarity of meaning. Presentation (markers, marks on
unsupported sentences) is ``ragcore.present``'s.
"""

from .claims import Claim, claims_of, sentence_spans
from .facts import Facts, facts_of, missing_facts
from .kinds import PROFILES, KindProfile, QuestionKind, profile, question_kind
from .nearest import closest_sentence, closest_with_position, not_said
from .verdict import (
    EMPTY,
    PARTLY,
    REFUSED,
    SUPPORTED,
    UNSUPPORTED,
    UNVERIFIED,
    WEIGHTS,
    ClaimCheck,
    Verdict,
    Weights,
    check_answer,
    check_claims,
    is_refusal,
)

__all__ = [
    "Claim", "ClaimCheck", "EMPTY", "Facts", "KindProfile", "PARTLY", "PROFILES", "QuestionKind",
    "REFUSED", "SUPPORTED", "UNSUPPORTED", "UNVERIFIED", "Verdict", "WEIGHTS", "Weights", "check_answer",
    "check_claims", "claims_of", "closest_sentence", "closest_with_position", "facts_of",
    "is_refusal", "missing_facts", "not_said", "profile", "question_kind", "sentence_spans",
]
