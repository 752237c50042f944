"""``llama_index.core.evaluation``: question sets, retrieval and answer evaluators, the batch
runner, under LlamaIndex's names (``ragcore.evaluation`` is the implementation).

The one translation is LlamaIndex's global defaults, read here at the edge as elsewhere in
compat: an evaluator given no ``llm`` uses ``Settings.llm`` as its judge (none set: the offline
proxies, which name themselves in each result's ``method``), ``SemanticSimilarityEvaluator``
with no ``embed_model`` uses ``Settings.embed_model`` (else the packaged model), and
``generate_question_context_pairs`` with no ``llm`` uses ``Settings.llm``.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...errors import ConfigError
from ...evaluation import answer_evaluators as _answers
from ...evaluation.questions import generated as _generation
from ...evaluation.batch_runner import BatchEvalRunner
from ...evaluation.questions.dataset import EmbeddingQAFinetuneDataset
from ...evaluation.questions.offline import generate_offline_questions
from ...evaluation.result import BaseEvaluator, EvaluationResult
from ...evaluation.retriever_evaluator import RetrievalEvalResult, RetrieverEvaluator
from ...prompts.judge import DEFAULT_QA_GENERATE_PROMPT
from ..settings import Settings

__all__ = [
    "BaseEvaluator", "BatchEvalRunner", "CorrectnessEvaluator", "EmbeddingQAFinetuneDataset",
    "EvaluationResult", "FaithfulnessEvaluator", "RelevancyEvaluator", "RetrievalEvalResult",
    "RetrieverEvaluator", "SemanticSimilarityEvaluator", "generate_offline_questions",
    "generate_qa_embedding_pairs", "generate_question_context_pairs",
]


class FaithfulnessEvaluator(_answers.FaithfulnessEvaluator):
    def __init__(self, llm: Any = None, **options: Any) -> None:
        super().__init__(llm or Settings.llm, **options)


class RelevancyEvaluator(_answers.RelevancyEvaluator):
    def __init__(self, llm: Any = None, **options: Any) -> None:
        super().__init__(llm or Settings.llm, **options)


class CorrectnessEvaluator(_answers.CorrectnessEvaluator):
    def __init__(self, llm: Any = None, **options: Any) -> None:
        super().__init__(llm or Settings.llm, **options)


class SemanticSimilarityEvaluator(_answers.SemanticSimilarityEvaluator):
    def __init__(self, embed_model: Any = None, **options: Any) -> None:
        if embed_model is None and Settings.embed_model is None:
            from ...embeddings import default_embedder

            embed_model = default_embedder()
        super().__init__(embed_model or Settings.embed_model, **options)


def generate_question_context_pairs(
    nodes: Sequence[Any], llm: Any = None,
    qa_generate_prompt_tmpl: str = DEFAULT_QA_GENERATE_PROMPT,
    num_questions_per_chunk: int = 2,
) -> EmbeddingQAFinetuneDataset:
    """LlamaIndex's question generation: ``llm``, else ``Settings.llm``, writes the questions."""
    llm = llm or Settings.llm
    if llm is None:
        raise ConfigError("generate_question_context_pairs needs llm= (or Settings.llm); "
                          "without a model use generate_offline_questions(nodes)")
    return _generation.generate_question_context_pairs(
        nodes, llm, qa_generate_prompt_tmpl, num_questions_per_chunk)


# LlamaIndex's older name for the same function.
generate_qa_embedding_pairs = generate_question_context_pairs
