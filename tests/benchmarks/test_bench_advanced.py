"""The retrieval benchmark's comparison of the advanced retrievers with plain vector retrieval:
every retriever gets its scores or an honest "not run" with the reason, and nDCG stays <= 1
even when merged parents or sentence windows repeat a gold passage."""

from __future__ import annotations

from ragcore import Document, VectorStoreIndex
from ragcore.embeddings.fake import FakeEmbedder


def test_each_advanced_retriever_is_scored_or_says_why_not(corpus_dir):
    from benchmarks.answers.question_set import load_questions
    from benchmarks.retrieval.bench_retrieval import advanced_rows

    text = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    index = VectorStoreIndex.from_documents([Document(text, doc_id="sotu")],
                                            embedder=FakeEmbedder())
    questions = [q for q in load_questions()
                 if q.answerable and q.collection == "state_of_the_union"]
    rows = {r.metric: r for r in advanced_rows(index, questions, {q.id: 1 for q in questions},
                                               quick=True)}
    for name in ("standard", "auto_merging", "sentence_window"):
        ndcg = rows[f"nDCG@10 advanced {name} (similarity)"].value
        assert 0 <= ndcg <= 1
        assert 0 <= rows[f"recall@4 advanced {name} (similarity)"].value <= 1
    for name in ("query_fusion", "hyde", "llm_rerank"):
        row = rows[f"nDCG@10 advanced {name}"]
        assert row.value is None and "needs a language model" in row.note
    assert "cross-encoder" in rows["nDCG@10 advanced cross_encoder"].note


def test_overlapping_windows_holding_one_gold_string_do_not_score_above_one():
    from benchmarks.retrieval.bench_retrieval import score_derived

    windows = ["the gold sentence and more", "before: the gold sentence", "other text",
               "the gold sentence, after"]
    scores = score_derived(("gold sentence",), windows, relevant_total=1)
    assert scores["nDCG@10"] <= 1 and scores["recall@4"] == 1 and scores["MRR@10"] == 1
