"""LlamaIndex's documented evaluation snippets, imports pointed at ragcore.compat: retrieval
evaluation over generated question-context pairs, answer evaluators, the batch runner."""

from __future__ import annotations

import asyncio
import shutil

import pytest

from ragcore import FakeLLM
from ragcore.compat.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.evaluation import (
    BatchEvalRunner,
    EmbeddingQAFinetuneDataset,
    FaithfulnessEvaluator,
    RelevancyEvaluator,
    RetrieverEvaluator,
    SemanticSimilarityEvaluator,
    generate_question_context_pairs,
)
from ragcore.compat.core.node_parser import SentenceSplitter


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path, corpus_dir, fake_embedder):
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    (tmp_path / "data").mkdir()
    shutil.copy(corpus_dir / "python_peps" / "pep-0020.rst", tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    Settings.reset()
    Settings.embed_model = fake_embedder
    yield
    Settings.reset()


def test_retriever_evaluation_on_generated_question_context_pairs(tmp_path):
    documents = SimpleDirectoryReader("data").load_data()
    node_parser = SentenceSplitter(chunk_size=512)
    nodes = node_parser.get_nodes_from_documents(documents)
    vector_index = VectorStoreIndex(nodes)
    retriever = vector_index.as_retriever(similarity_top_k=2)
    llm = FakeLLM(default="What does the Zen of Python say about errors?\n"
                          "Is explicit better than implicit?")

    qa_dataset = generate_question_context_pairs(nodes, llm=llm, num_questions_per_chunk=2)
    qa_dataset.save_json("pg_eval_dataset.json")
    qa_dataset = EmbeddingQAFinetuneDataset.from_json("pg_eval_dataset.json")

    retriever_evaluator = RetrieverEvaluator.from_metric_names(["mrr", "hit_rate"],
                                                               retriever=retriever)
    sample_id, sample_query = list(qa_dataset.queries.items())[0]
    sample_expected = qa_dataset.relevant_docs[sample_id]
    eval_result = retriever_evaluator.evaluate(sample_query, sample_expected)
    assert set(eval_result.metric_vals_dict) == {"mrr", "hit_rate"}

    eval_results = asyncio.run(retriever_evaluator.aevaluate_dataset(qa_dataset))
    assert len(eval_results) == len(nodes) * 2
    assert all(0.0 <= r.metric_vals_dict["mrr"] <= 1.0 for r in eval_results)


def test_faithfulness_and_relevancy_of_a_response_with_a_judge_and_without():
    Settings.llm = FakeLLM(default="YES")
    documents = SimpleDirectoryReader("data").load_data()
    vector_index = VectorStoreIndex.from_documents(documents)
    query_engine = vector_index.as_query_engine(llm=FakeLLM(default="Errors should never "
                                                            "pass silently."))
    response = query_engine.query("What does the Zen of Python say about errors?")

    evaluator = FaithfulnessEvaluator()  # Settings.llm judges
    eval_result = evaluator.evaluate_response(response=response)
    assert eval_result.passing and eval_result.method == "judge: fake"

    Settings.llm = None
    offline = RelevancyEvaluator().evaluate_response(
        query="What does the Zen of Python say about errors?", response=response)
    assert offline.method.startswith("offline proxy")


def test_batch_eval_runner_and_semantic_similarity():
    documents = SimpleDirectoryReader("data").load_data()
    vector_index = VectorStoreIndex.from_documents(documents)
    runner = BatchEvalRunner(
        {"faithfulness": FaithfulnessEvaluator(llm=FakeLLM(default="NO")),
         "similarity": SemanticSimilarityEvaluator()},
        workers=8,
    )
    queries = ["Is flat better than nested?", "Should errors pass silently?"]
    eval_results = asyncio.run(runner.aevaluate_queries(
        vector_index.as_query_engine(llm=FakeLLM(default="Flat is better than nested.")),
        queries=queries, reference=["Flat is better than nested."] * 2))
    assert [r.passing for r in eval_results["faithfulness"]] == [False, False]
    assert eval_results["similarity"][0].score == pytest.approx(1.0, abs=1e-5)
