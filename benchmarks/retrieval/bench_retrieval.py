"""Retrieval quality on the answer questions: nDCG@10, recall and MRR for each retrieval mode.

Every answerable question of ``benchmarks/answers/questions.jsonl`` is asked of the cached
benchmark index (``benchmarks/answers/corpus_index.py``) in each retrieval mode: "similarity"
(dense vectors), "keyword" (BM25), "hybrid" (both fused: the default mode) and "mmr". A
retrieved chunk is relevant when it holds one of the question's gold strings whole
(whitespace- and case-normalised). Per question, then averaged:

- nDCG@10: binary gains; the ideal ranking puts every relevant chunk of the index first. A
  question none of whose gold strings any chunk holds whole (the splitter cut them) scores 0;
  a row counts those questions;
- recall@10 and recall@4: the share of the question's gold strings found in its top 10 (top 4,
  the query engine's default) chunks;
- MRR@10: 1 / the rank of the first relevant chunk, 0 if none is in the top 10.

The metrics are computed by ``ragcore.evaluation``'s ``RetrieverEvaluator`` (gold strings as its
``expected_texts``, the count of relevant chunks in the index as ``relevant_total``): the same
code users run on their own question sets (``ragcore eval``, the app's Evaluate tab).

The table of modes (also by question kind) goes to stderr; the rows go to the harness's table,
with one row saying whether the default (hybrid) is ahead of both dense and keyword on nDCG@10.
A second table (``retrieval_variants``) shows the keyword-analysis and fusion variants the
default was chosen among; a third (``bench_advanced_retrieval.advanced_vs_plain``) the advanced
retrievers against plain vector retrieval ("standard" over similarity). A quick run leaves out
mmr.

    python -m benchmarks --only retrieval
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from statistics import fmean

from benchmarks.answers.corpus_index import load_or_build
from benchmarks.answers.report import cell, format_matrix
from benchmarks.retrieval.bench_advanced_retrieval import advanced_vs_plain
from benchmarks.answers.question_set import Question, load_questions, normalize
from benchmarks.harness import Row, corpus_dir
from benchmarks.retrieval.retrieval_variants import rank_variants, summarize, variant_table
from ragcore.evaluation import RetrieverEvaluator

MODES = ("similarity", "keyword", "hybrid", "mmr")
K = 10
ENGINE_TOP_K = 4
METRICS = ("nDCG@10", "recall@10", "recall@4", "MRR@10")
EVALUATOR = RetrieverEvaluator.from_metric_names(
    [f"ndcg@{K}", f"recall@{K}", f"recall@{ENGINE_TOP_K}", f"mrr@{K}"])
_LABELS = dict(zip(EVALUATOR.metric_names, METRICS))  # "ndcg@10" -> "nDCG@10"


def score_ranking(golds: tuple[str, ...], chunks: list[str], relevant_total: int) -> dict:
    """nDCG@10, recall@10, recall@4 and MRR@10 of one ranked list of chunk texts: a chunk is
    relevant when it holds a gold string whole; ``relevant_total`` chunks of the index do."""
    result = EVALUATOR.evaluate_ranking("", chunks[:K], expected_texts=golds,
                                        relevant_total=relevant_total)
    return {_LABELS[name]: value for name, value in result.metric_vals_dict.items()}


def relevant_totals(index, questions: list[Question]) -> dict[str, int]:
    """For each question, how many chunks of the whole index hold one of its gold strings."""
    texts = [normalize(node.text) for node in index.all_nodes()]
    golds = {q.id: [normalize(g) for g in q.gold] for q in questions}
    return {qid: sum(any(g in t for g in gs) for t in texts) for qid, gs in golds.items()}


def score_mode(index, mode: str, questions: list[Question], totals: dict[str, int]):
    """Per-question scores of one retrieval mode, and the mean milliseconds per retrieval."""
    retriever = index.as_retriever(mode=mode, similarity_top_k=K)
    retriever.retrieve(questions[0].question)  # loads the model / builds BM25: not a query's cost
    scores: dict[str, dict] = {}
    started = time.perf_counter()
    for q in questions:
        chunks = [scored.node.text for scored in retriever.retrieve(q.question)]
        scores[q.id] = score_ranking(q.gold, chunks, totals[q.id])
    return scores, (time.perf_counter() - started) / len(questions) * 1000


def _mean(scores: dict[str, dict], ids: list[str], metric: str) -> float:
    return fmean(scores[i][metric] for i in ids)


def _tables(results: dict[str, tuple[dict, float]], questions: list[Question]) -> str:
    ids = [q.id for q in questions]
    modes = [[mode, *(cell(_mean(s, ids, m)) for m in METRICS), f"{ms:.1f}"]
             for mode, (s, ms) in results.items()]
    kinds = sorted({q.kind for q in questions})
    by_kind = [[mode, *(cell(_mean(s, [q.id for q in questions if q.kind == k], "nDCG@10"))
                        for k in kinds)] for mode, (s, _) in results.items()]
    return "\n\n".join([
        format_matrix(f"retrieval over {len(ids)} answerable questions (top {K})",
                      ["mode", *METRICS, "ms/query"], modes),
        format_matrix("nDCG@10 by question kind", ["mode", *kinds], by_kind),
    ])


def variant_rows(index, questions: list[Question], totals: dict[str, int]) -> list[Row]:
    """The variants' table to stderr, and each variant's nDCG@10 as a row."""
    scores = {
        name: {q.id: score_ranking(q.gold, [s.node.text for s in ranking], totals[q.id])
               for q, ranking in zip(questions, rankings)}
        for name, rankings in rank_variants(index, questions).items()
    }
    summaries = summarize(scores, questions)
    sys.stderr.write("\n" + format_matrix(
        "variants: keyword analysis and fusion (top 10; +/-: questions ranked better/worse "
        "than default BM25)", *variant_table(summaries)) + "\n")
    return [Row("retrieval", f"nDCG@10 variant: {s['name']}", s["nDCG@10"],
                note=f"recall@10 {s['recall@10']:.3f}, MRR@10 {s['MRR@10']:.3f}, "
                     f"vs BM25 {s['vs BM25']}")
            for s in summaries]


def default_ahead(results: dict[str, tuple[dict, float]], ids: list[str]) -> Row:
    """How far hybrid (the default mode) is ahead of the better of dense and keyword."""
    ndcg = {mode: _mean(scores, ids, "nDCG@10") for mode, (scores, _) in results.items()}
    margin = ndcg["hybrid"] - max(ndcg["similarity"], ndcg["keyword"])
    return Row("retrieval", "nDCG@10 hybrid (default) minus the better of dense and keyword",
               margin, target="> 0", ok=margin > 0)


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row | dict]:
    """nDCG@10, recall@10/@4, MRR@10 and ms per query for each retrieval mode."""
    corpus = corpus or corpus_dir()
    every = load_questions()
    bench = load_or_build(every, corpus)
    questions = [q for q in every if q.answerable]
    totals = relevant_totals(bench.index, questions)
    rows: list[Row | dict] = list(bench.rows("retrieval"))
    uncut = sum(1 for q in questions if totals[q.id])
    rows.append(Row("retrieval", "questions with a chunk holding a gold string whole", uncut,
                    note=f"of {len(questions)}; the others score 0 in every mode"))
    modes = MODES[:3] if quick else MODES  # quick: the three modes users choose between
    results = {mode: score_mode(bench.index, mode, questions, totals) for mode in modes}
    sys.stderr.write(_tables(results, questions) + "\n")
    ids = [q.id for q in questions]
    for mode, (scores, ms) in results.items():
        rows += [Row("retrieval", f"{metric} {mode}", _mean(scores, ids, metric))
                 for metric in METRICS]
        rows.append(Row("retrieval", f"retrieve {mode}, top {K}", ms, "ms"))
        for kind in sorted({q.kind for q in questions}):
            kind_ids = [q.id for q in questions if q.kind == kind]
            rows.append(Row("retrieval", f"nDCG@10 {mode}, {kind}",
                            _mean(scores, kind_ids, "nDCG@10"), note=f"{len(kind_ids)} questions"))
    rows.append(default_ahead(results, ids))
    rows += variant_rows(bench.index, questions, totals)
    rows += advanced_rows(bench.index, questions, totals, quick=quick)
    return rows


def score_derived(golds: tuple[str, ...], texts: list[str], relevant_total: int) -> dict:
    """``score_ranking`` for results that are not chunks of the index (merged parents,
    sentence windows): overlapping windows can each hold the gold, so the ideal ranking counts
    at least the relevant results returned (``RetrieverEvaluator``'s nDCG does), and nDCG stays
    at most 1."""
    return score_ranking(golds, texts, relevant_total)


def advanced_rows(index, questions: list[Question], totals: dict[str, int], *,
                  quick: bool = False) -> list[Row]:
    """The advanced retrievers against plain vector retrieval (and, in a full run, over the
    default hybrid search too): a table to stderr, and rows."""
    results = advanced_vs_plain(index, questions, lambda texts, q: score_derived(
        q.gold, texts, totals[q.id]), top_k=K,
                                bases=("similarity",) if quick else ("similarity", "hybrid"))
    ids = [q.id for q in questions]
    lines, rows = [], []
    for name, result in results.items():
        label = "plain vector: standard (similarity)" if name == "standard (similarity)" else name
        if "skipped" in result:
            lines.append([label, *(["not run"] * len(METRICS)), "", ""])
            rows.append(Row("retrieval", f"nDCG@10 advanced {name}", None,
                            note=f"not run: {result['skipped']}"))
            continue
        means = {m: _mean(result["scores"], ids, m) for m in METRICS}
        lines.append([label, *(cell(means[m]) for m in METRICS), f"{result['chars@4']:.0f}",
                      f"{result['ms']:.1f}"])
        rows += [Row("retrieval", f"{m} advanced {name}", means[m],
                     note=f"{result['chars@4']:.0f} chars in the top 4" if m == "nDCG@10" else "")
                 for m in METRICS]
        rows.append(Row("retrieval", f"retrieve advanced {name}, top {K}", result["ms"], "ms"))
    sys.stderr.write("\n" + format_matrix(
        f"advanced retrievers and plain vector retrieval (top {K}; overlapping windows and "
        "parents can repeat one gold passage, so recall is the fairer measure; not run: needs "
        "a language model or a cross-encoder, none offline)",
        ["retriever", *METRICS, "chars@4", "ms/query"], lines) + "\n")
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table([Row.from_any(r, group="retrieval") for r in run()]))
