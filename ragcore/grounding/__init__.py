"""Grounding: is an answer what the documents say? Decided by ragcore, for every backend.

Two questions, one package: what kind of question was asked (``kinds``: factoid, list, summary,
comparison, document), which decides the path to an answer; and which claims of the answer the
passages state (``verdict``, built on ``claims`` and ``facts``, text compared as ``text``
folds it, numbers read by ``numbers``, features weighed by ``weights``; ``answer_type``
refuses a short answer of another kind than asked for; ``judge`` asks the packaged model),
which decides what a person is shown. ``nearest`` words the reply when the documents do not
say it. No model is needed; the index's embedding model, when given, adds similarity of
meaning. Presentation (markers, marks on unsupported sentences) is ``ragcore.present``'s.
"""

from ..lazy_exports import lazy_exports

# Names load from their module on first use: the synthesizer needs only ``kinds`` at import,
# not the verdict's extractive reader and numpy.
_EXPORTS: dict[str, str] = {
    "Claim": ".claims",
    "claims_of": ".claims",
    "sentence_spans": ".claims",
    "Facts": ".facts",
    "facts_of": ".facts",
    "missing_facts": ".facts",
    "PROFILES": ".kinds",
    "KindProfile": ".kinds",
    "QuestionKind": ".kinds",
    "profile": ".kinds",
    "question_kind": ".kinds",
    "asks_one_fact": ".kinds",
    "closest_sentence": ".nearest",
    "closest_with_position": ".nearest",
    "not_said": ".nearest",
    "EMPTY": ".verdict",
    "PARTLY": ".verdict",
    "REFUSED": ".verdict",
    "SUPPORTED": ".verdict",
    "UNSUPPORTED": ".verdict",
    "UNVERIFIED": ".verdict",
    "WEIGHTS": ".weights",
    "ClaimCheck": ".verdict",
    "Verdict": ".verdict",
    "Weights": ".weights",
    "check_answer": ".verdict",
    "check_claims": ".verdict",
    "is_refusal": ".verdict",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
