"""Retrieval metrics on worked examples with known values, and RetrieverEvaluator around them."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError
from ragcore.evaluation import RetrieverEvaluator, mean_metrics, resolve_metrics
from ragcore.evaluation.relevance import judge_ids, judge_texts
from ragcore.evaluation.retrieval_metrics import (
    Judged,
    average_precision,
    hit_rate,
    mrr,
    ndcg,
    precision,
    recall,
)
from ragcore.types import Node, ScoredNode

# Ranks 2 and 4 relevant (of 4 retrieved), 2 expected passages: "a" at rank 2, "b" at rank 4.
RANKING = ["x", "a", "y", "b"]
EXPECTED = ["a", "b"]


def judged(**options) -> Judged:
    return judge_ids(EXPECTED, RANKING, **options)


def test_worked_example_hit_rate_and_mrr():
    assert hit_rate(judged()) == 1.0
    assert hit_rate(judged(), 1) == 0.0
    assert mrr(judged()) == 0.5
    assert mrr(judged(), 1) == 0.0
    assert mrr(judge_ids(["y"], RANKING)) == pytest.approx(1 / 3)


def test_worked_example_precision_and_recall_at_k():
    assert precision(judged()) == 0.5
    assert precision(judged(), 2) == 0.5
    assert precision(judged(), 1) == 0.0
    assert recall(judged()) == 1.0
    assert recall(judged(), 2) == 0.5
    assert recall(judged(), 3) == 0.5


def test_worked_example_average_precision():
    # relevant at ranks 2 and 4: (1/2 + 2/4) / 2 expected
    assert average_precision(judged()) == 0.5
    assert average_precision(judged(), 2) == 0.25
    assert average_precision(judge_ids(["a"], ["a", "a2"])) == 1.0
    assert average_precision(judge_ids(["q"], RANKING)) == 0.0


def test_worked_example_ndcg():
    # DCG = 1/log2(3) + 1/log2(5) = 1.061606; ideal (2 relevant) = 1 + 1/log2(3) = 1.630930
    assert ndcg(judged()) == pytest.approx(0.650921, abs=1e-6)
    assert ndcg(judged(), 2) == pytest.approx(0.386853, abs=1e-6)
    # three relevant passages exist in the collection: the ideal ranks three first
    assert ndcg(judged(relevant_total=3), 4) == pytest.approx(0.498189, abs=1e-6)
    assert ndcg(judge_ids(["a"], ["a", "x"])) == 1.0
    assert ndcg(judge_ids(["q"], ["a", "x"])) == 0.0


def test_a_passage_holding_two_expected_items_counts_for_both_in_recall():
    ranking = judge_texts(["zen of python", "Beautiful is better"],
                          ["The Zen of\n Python: beautiful is better than ugly.", "other"])
    assert ranking.matches[0] == frozenset({0, 1})
    assert recall(ranking, 1) == 1.0 and precision(ranking) == 0.5


def test_metric_names_carry_their_cut_off_and_unknown_names_list_the_known():
    metrics = resolve_metrics(["hit_rate", "NDCG@2", "recall@3"])
    assert [(m.metric_name, m.k) for m in metrics] == [("hit_rate", None), ("ndcg@2", 2),
                                                       ("recall@3", 3)]
    assert metrics[1](judged()) == pytest.approx(0.386853, abs=1e-6)
    with pytest.raises(ConfigError, match="unknown retrieval metric 'map'.*hit_rate, mrr"):
        resolve_metrics(["map"])
    assert resolve_metrics(["ap@4"])[0](judged()) == 0.5
    with pytest.raises(ConfigError, match="ndcg@0"):
        resolve_metrics(["ndcg@0"])


class ListRetriever:
    """Returns fixed nodes for every query and counts the calls."""

    def __init__(self, nodes: list[Node]) -> None:
        self.nodes, self.calls = nodes, 0

    def retrieve(self, query, *, trace=None):
        self.calls += 1
        return [ScoredNode(n, 1.0 - i / 10) for i, n in enumerate(self.nodes)]


def nodes() -> list[Node]:
    return [Node(text="unrelated", node_id="x", metadata={"file_name": "other.txt"}),
            Node(text="the answer", node_id="a", ref_doc_id="doc-1",
                 metadata={"file_name": "pep-0008.rst"})]


def test_retriever_evaluator_retrieves_and_scores_by_node_id_or_source():
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"],
                                                     retriever=ListRetriever(nodes()))
    by_id = evaluator.evaluate("q?", expected_ids=["a"])
    assert by_id.metric_vals_dict == {"hit_rate": 1.0, "mrr": 0.5}
    assert by_id.retrieved_ids == ["x", "a"] and by_id.relevant == [False, True]
    assert by_id.metric_dict["mrr"].score == 0.5
    # an imported question names its source file or document instead of a passage id
    assert evaluator.evaluate("q?", expected_ids=["pep-0008.rst"]).metric_vals_dict["mrr"] == 0.5
    assert evaluator.evaluate("q?", expected_ids=["doc-1"]).metric_vals_dict["mrr"] == 0.5
    by_text = evaluator.evaluate("q?", expected_texts=["THE  answer"])
    assert by_text.metric_vals_dict["hit_rate"] == 1.0


def test_retriever_evaluator_needs_something_expected_and_a_retriever():
    evaluator = RetrieverEvaluator.from_metric_names(["mrr"])
    with pytest.raises(ConfigError, match="no retriever"):
        evaluator.evaluate("q?", ["a"])
    with pytest.raises(ConfigError, match="nothing expected"):
        evaluator.evaluate_ranking("q?", nodes())


def test_evaluate_dataset_and_its_mean(tmp_path):
    from ragcore.evaluation import EmbeddingQAFinetuneDataset

    dataset = EmbeddingQAFinetuneDataset({"q1": "one?", "q2": "two?", "q3": "three?"},
                                         relevant_docs={"q1": ["a"], "q2": ["x"]})
    retriever = ListRetriever(nodes())
    evaluator = RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"], retriever=retriever)
    seen = []
    results = evaluator.evaluate_dataset(dataset, on_progress=lambda d, t: seen.append((d, t)))
    assert len(results) == 2 and retriever.calls == 2  # q3 names nothing relevant: skipped
    assert seen == [(1, 2), (2, 2)]
    assert mean_metrics(results) == {"hit_rate": 1.0, "mrr": 0.75}


def test_aevaluate_dataset_gives_the_same_results():
    import asyncio

    from ragcore.evaluation import EmbeddingQAFinetuneDataset

    dataset = EmbeddingQAFinetuneDataset({"q1": "one?"}, relevant_docs={"q1": ["a"]})
    evaluator = RetrieverEvaluator.from_metric_names(["mrr"], retriever=ListRetriever(nodes()))
    results = asyncio.run(evaluator.aevaluate_dataset(dataset, workers=2))
    assert results[0].metric_vals_dict == {"mrr": 0.5}


def test_ndcg_stays_at_most_one_when_several_passages_match_one_expected_source():
    chunks = [Node(text="one", node_id="c1", metadata={"file_name": "heron.txt"}),
              Node(text="two", node_id="c2", metadata={"file_name": "granite.txt"}),
              Node(text="three", node_id="c3", metadata={"file_name": "heron.txt"})]
    judged_chunks = judge_ids(["heron.txt"], chunks)
    assert judged_chunks.relevant == [True, False, True]
    # ideal: two relevant first = 1 + 1/log2(3); got: 1 + 1/log2(4)
    assert ndcg(judged_chunks) == pytest.approx(0.919721, abs=1e-6)
    assert ndcg(judge_ids(["heron.txt"], [chunks[0], chunks[2]])) == 1.0
