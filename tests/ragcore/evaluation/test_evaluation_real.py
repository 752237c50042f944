"""Evaluation end to end on real corpus files, offline: the packaged embedding model, the
extractive backend, questions generated from the index's passages."""

from __future__ import annotations

import pytest

from ragcore.evaluation import (
    BatchEvalRunner,
    RetrieverEvaluator,
    default_evaluators,
    generate_offline_questions,
    mean_metrics,
)
from ragcore.llms.extractive.backend import ExtractiveLLM

pytestmark = pytest.mark.slow

FILES = ("python_peps/pep-0020.rst", "python_peps/pep-0257.rst")


@pytest.fixture(scope="module")
def index(corpus_dir, real_embedder):
    from ragcore.index import VectorStoreIndex
    from ragcore.readers import SimpleDirectoryReader

    documents = SimpleDirectoryReader(input_files=[corpus_dir / f for f in FILES]).load_data()
    return VectorStoreIndex.from_documents(documents, embedder=real_embedder)


@pytest.fixture(scope="module")
def questions(index):
    return generate_offline_questions(list(index.all_nodes()), num_questions=6, seed=7)


def test_generated_questions_find_their_passages(index, questions):
    assert len(questions) == 6
    evaluator = RetrieverEvaluator.from_metric_names(
        ["hit_rate", "mrr", "ndcg@4"], retriever=index.as_retriever(similarity_top_k=4))
    means = mean_metrics(evaluator.evaluate_dataset(questions))
    # a key phrase of a sentence is enough to find its passage most of the time
    assert means["hit_rate"] >= 0.8 and means["mrr"] >= 0.6


def test_modes_and_retrievers_on_the_real_corpus(index, questions, real_embedder):
    runner = BatchEvalRunner(default_evaluators(None, embedder=real_embedder))
    report = runner.evaluate_setups(index, questions.head(2), llm=ExtractiveLLM(),
                                    modes=["compact", "accumulate"],
                                    retrievers=["hybrid", "keyword"], index_name="peps")
    board = report.leaderboard()
    assert len(board) == 4 and all(b.questions == 2 and b.errors == 0 for b in board)
    for b in board:
        assert b.means["hit_rate"] >= 0.5
        assert b.means["correctness"] is not None and b.means["semantic_similarity"] > 0.3
    assert "all-MiniLM-L6-v2" in report.methods["semantic_similarity"]
    row = report.rows_for("q001")[0]
    assert row.answer and row.sources and row.feedback["faithfulness"].startswith(
        "offline proxy (source support")
