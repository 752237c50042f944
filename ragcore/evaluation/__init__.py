"""Evaluation: which retriever and response mode answer a user's documents best, measured.

LlamaIndex's ``llama_index.core.evaluation`` names and shapes (mirrored under
``ragcore.compat.core.evaluation``), with offline measures when no language model can judge.

    questions/              the question set (EmbeddingQAFinetuneDataset, alias QuestionSet;
                            save_json / from_json) and where its questions come from: a
                            language model (generate_question_context_pairs), passages without
                            a model (generate_offline_questions), a user's CSV or JSON lines
                            (import_questions)
    relevance.py            which retrieved passages are relevant (by id, source or gold text)
    retrieval_metrics.py    hit rate, MRR, precision, recall, nDCG (at k) of a judged ranking
    retriever_evaluator.py  RetrieverEvaluator: retrieve, judge, compute the metrics
    result.py               EvaluationResult and the answer evaluators' base
    judge.py                a language model as judge: asking it, forgiving readers of replies
    proxies.py              offline stand-ins for a judge (source support, gold match ...)
    embedding_cache.py      CachedEmbedder: each text embedded once per evaluation
    answer_evaluators.py    Faithfulness, Relevancy, Correctness, SemanticSimilarity evaluators
    setups.py               every (retriever x mode) over every question, retrieving once
    batch_runner.py         BatchEvalRunner (LlamaIndex's) and evaluate_setups; default_evaluators
    report.py               EvaluationReport: rows, leaderboard, CSV and Markdown
    bootstrap.py            bootstrap confidence intervals of the leaderboard's means
    job.py                  an evaluation in a background thread, saved in the workspace

It sits above the query engines and the workspace (its reports are saved there) and beside
``ragcore.present``, whose citation check is the offline faithfulness measure. The judge's and
the question writer's prompts are in ``ragcore.prompts.judge``, with every other prompt.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "EmbeddingQAFinetuneDataset": ".questions.dataset",
    "QuestionSet": ".questions.dataset",
    "generate_question_context_pairs": ".questions.generated",
    "generate_offline_questions": ".questions.offline",
    "sample_passages": ".questions.offline",
    "import_questions": ".questions.imported",
    "questions_from_text": ".questions.imported",
    "RetrieverEvaluator": ".retriever_evaluator",
    "RetrievalEvalResult": ".retriever_evaluator",
    "mean_metrics": ".retriever_evaluator",
    "resolve_metrics": ".retrieval_metrics",
    "EvaluationResult": ".result",
    "BaseEvaluator": ".result",
    "FaithfulnessEvaluator": ".answer_evaluators",
    "RelevancyEvaluator": ".answer_evaluators",
    "CorrectnessEvaluator": ".answer_evaluators",
    "SemanticSimilarityEvaluator": ".answer_evaluators",
    "BatchEvalRunner": ".batch_runner",
    "default_evaluators": ".batch_runner",
    "EvalProgress": ".setups",
    "run_setups": ".setups",
    "SEARCH_MODES": ".setups",
    "EvaluationReport": ".report",
    "QuestionRow": ".report",
    "LeaderboardRow": ".report",
    "bootstrap_interval": ".bootstrap",
    "EvaluationJob": ".job",
    "start_evaluation": ".job",
    "load_evaluation": ".job",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
