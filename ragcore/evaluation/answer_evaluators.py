"""The answer metrics: faithfulness, relevancy, correctness and semantic similarity.

Each takes ``llm=`` to judge with a language model (our prompts in ``ragcore.prompts.judge``).
Without one, or with the offline extractive backend (it only quotes, it cannot judge), each falls
back to the offline proxy of ``proxies.py`` and says so in ``method`` and ``feedback``. Semantic
similarity never needs a judge: it is the embedding cosine, as in LlamaIndex. The offline
measures read the answer without the offline backend's labels and headings
(``proxies.claim_text``).

    faithfulness         is the answer supported by the retrieved passages?      YES/NO
    relevancy            does the answer respond to the question?                YES/NO
    correctness          does it say what the expected answer says? (reference)  1-5, >= 4
    semantic_similarity  how close in meaning to the expected answer? (reference) cosine >= 0.8
"""

from __future__ import annotations

from typing import Any, Sequence

from ..errors import ConfigError
from ..prompts.judge import CORRECTNESS_PROMPT, FAITHFULNESS_PROMPT, RELEVANCY_PROMPT
from . import judge, proxies
from .result import BaseEvaluator, EvaluationResult

RELEVANCY_PROXY_PASS = 0.5  # question match at or above this passes (cosine, or word share)


class FaithfulnessEvaluator(BaseEvaluator):
    """Is the answer supported by its contexts? (offline: the citation check's support)"""

    name = "faithfulness"
    proxy = "source support (the citation check)"

    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, *, reference: str | None = None
                 ) -> EvaluationResult:
        if response is None or contexts is None:
            raise ConfigError("faithfulness needs response= and contexts=")
        if self.llm is not None:
            prompt = FAITHFULNESS_PROMPT.format(context="\n\n".join(contexts), answer=response)
            return self._from_verdict(judge.judged(self.llm, prompt, judge.read_yes_no),
                                      query, response, contexts)
        score, note = proxies.source_support(response, contexts, self.embedder)
        if score is None:
            return self._invalid(query, response, contexts, note)
        return self._result(query, response, contexts, score=score, passing=score == 1.0,
                            feedback=note)


class RelevancyEvaluator(BaseEvaluator):
    """Does the answer respond to the question? (offline: closeness to the question)"""

    name = "relevancy"
    proxy = "question match (embedding cosine of question and answer)"

    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, *, reference: str | None = None
                 ) -> EvaluationResult:
        if query is None or response is None:
            raise ConfigError("relevancy needs query= and response=")
        contexts = list(contexts or [])
        if self.llm is not None:
            prompt = RELEVANCY_PROMPT.format(query=query, context="\n\n".join(contexts),
                                             answer=response)
            return self._from_verdict(judge.judged(self.llm, prompt, judge.read_yes_no),
                                      query, response, contexts)
        if not response.strip():
            return self._invalid(query, response, contexts, "no answer text to judge")
        score, note = proxies.question_match(query, proxies.claim_text(response),
                                             self.embedder)
        return self._result(query, response, contexts, score=score,
                            passing=score >= RELEVANCY_PROXY_PASS, feedback=note)


class CorrectnessEvaluator(BaseEvaluator):
    """Does the answer say what the expected answer says? 1-5 (offline: gold match)"""

    name = "correctness"
    needs_reference = True
    proxy = "gold match (expected answer word for word, else word overlap)"

    def __init__(self, llm: Any = None, *, embedder: Any = None,
                 score_threshold: float = 4.0) -> None:
        super().__init__(llm, embedder=embedder)
        if not 1.0 <= score_threshold <= 5.0:
            raise ConfigError(f"score_threshold ({score_threshold}) must be from 1 to 5")
        self.score_threshold = score_threshold

    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, *, reference: str | None = None
                 ) -> EvaluationResult:
        if response is None:
            raise ConfigError("correctness needs response=")
        if not reference:
            return self._invalid(query, response, contexts,
                                 "no expected answer for this question: correctness not judged")
        if self.llm is not None:
            prompt = CORRECTNESS_PROMPT.format(query=query or "", reference=reference,
                                               answer=response)
            verdict = judge.judged(self.llm, prompt, judge.read_score)
            passing = None if verdict.score is None else verdict.score >= self.score_threshold
            return self._from_verdict(verdict, query, response, contexts, passing)
        score, note = proxies.gold_match(proxies.claim_text(response), reference)
        return self._result(query, response, contexts, score=score,
                            passing=score >= self.score_threshold, feedback=note)


class SemanticSimilarityEvaluator(BaseEvaluator):
    """How close in meaning is the answer to the expected answer (embedding cosine)."""

    name = "semantic_similarity"
    needs_reference = True

    def __init__(self, embed_model: Any, *, similarity_threshold: float = 0.8) -> None:
        if not hasattr(embed_model, "embed_batch"):
            raise ConfigError(f"{embed_model!r} has no embed_batch(): pass an embedder (the "
                              "index's, index.embedder)")
        if not -1.0 <= similarity_threshold <= 1.0:
            raise ConfigError(f"similarity_threshold ({similarity_threshold}) must be a cosine "
                              "from -1 to 1")
        super().__init__(None, embedder=embed_model)
        self.embed_model = embed_model
        self.similarity_threshold = similarity_threshold

    @property
    def method(self) -> str:
        name = getattr(self.embed_model, "model_name", "") or type(self.embed_model).__name__
        return f"embedding cosine with the expected answer: {name}"

    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, *, reference: str | None = None
                 ) -> EvaluationResult:
        if response is None:
            raise ConfigError("semantic similarity needs response=")
        if not reference or not response.strip():
            return self._invalid(query, response, contexts,
                                 "no expected answer or no answer to compare")
        score = proxies.similarity(self.embed_model, proxies.claim_text(response), reference)
        return self._result(query, response, contexts, score=score,
                            passing=score >= self.similarity_threshold,
                            feedback=f"cosine {score:.2f} with the expected answer "
                                     f"(passes at {self.similarity_threshold})")
