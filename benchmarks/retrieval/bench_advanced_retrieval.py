"""The advanced retrievers against plain vector retrieval: is the gold passage in what the LLM
reads, and how much does it read?

The text collections of the answer questions (``benchmarks/answers``: the speech, the PEPs and
the Rust book) are indexed three ways over the same files and the same packaged
embedding model:

- plain: ``SentenceSplitter`` chunks, top 4 by similarity (what ``as_retriever(mode=
  "similarity")`` gives the query engine);
- auto-merging: ``HierarchicalNodeParser`` (2048/512/128 tokens), the 128-token leaves
  embedded, top 12 leaves merged into their parents (``AutoMergingRetriever``), first 4 kept;
- sentence window: one node per sentence (``SentenceWindowNodeParser``, 3 each side), top 4,
  each replaced by its window (``MetadataReplacementPostProcessor``).

Per question: "gold in context", the share of its gold strings found whole in the text of
the 4 nodes handed to the synthesizer (whitespace- and case-normalised), and the characters of
that context. HyDE, query fusion, LLM reranking, routing and sub-questions need a language
model to write text; the offline extractive backend writes none, so they are not measured
here (with it they fall back to the plain question, as their traces say).

Measured 2026-11-22 (31 questions, 20 files, ONNX int8 all-MiniLM-L6-v2, a loaded 2-core
machine): gold in context 0.64 plain, 0.67 auto-merging, 0.85 sentence window, for about the
same context (2,600 / 2,200 / 2,750 characters); 19 / 43 / 55 ms per query.

    python -m benchmarks.retrieval.bench_advanced_retrieval

``advanced_vs_plain`` is the second comparison, run by ``bench_retrieval`` (``python -m
benchmarks --only retrieval``): every advanced retriever of ``ragcore.engines.by_name``, as the
app builds it over an ordinary index, on the retrieval benchmark's index and questions, scored
like the retrieval modes (nDCG@10, recall@10, recall@4, MRR@10) against plain vector retrieval
(top 10 by similarity), with the characters of the top 4 beside them: an auto-merged parent
holds four chunks, so its recall is bought with more text. The retrievers that need a language
model that writes text (query fusion, HyDE, LLM rerank) or a cross-encoder on disk get a row
saying so instead of a score: this machine has neither offline.

Measured 2026-11-22 (65 questions, 461 documents, top 10, a loaded 2-core machine):

    retriever                   nDCG@10  recall@10  recall@4  MRR@10  chars@4  ms/query
    plain vector (similarity)   0.513    0.651      0.559     0.486   2637     20
    auto-merging (similarity)   0.531    0.731      0.608     0.510   4508     25
    sentence window (similar.)  0.604    0.779      0.703     0.579   3318     5709
    hybrid (the app's default)  0.624    0.797      0.636     0.595   2640     31
    auto-merging (hybrid)       0.625    0.838      0.746     0.606   4921     37
    sentence window (hybrid)    0.604    0.779      0.703     0.570   3334     3562

Sentence windows find more of the gold in less text than merged parents, at the cost of
embedding the sentences of 30 candidate chunks per query (12 at the app's top 4).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from statistics import fmean
from typing import Any, Callable

from benchmarks.answers.question_set import Question, gold_found, load_questions
from benchmarks.harness import Row, corpus_dir
from ragcore import (
    AutoMergingRetriever, HierarchicalNodeParser, MetadataReplacementPostProcessor, NodeStore,
    SentenceSplitter, SentenceWindowNodeParser, SimpleDirectoryReader, VectorStoreIndex,
    get_leaf_nodes,
)
from ragcore.embeddings import default_embedder
from ragcore.errors import ConfigError
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.engines.by_name import build_retriever

COLLECTIONS = ("state_of_the_union", "python_peps", "rust_book")
TOP_K = 4


def build_retrievers(documents: list, embedder: Any) -> dict[str, Callable[[str], list]]:
    """The three ways to get the synthesizer's nodes for a question."""
    plain = VectorStoreIndex(SentenceSplitter().get_nodes_from_documents(documents),
                             embedder=embedder).as_retriever(similarity_top_k=TOP_K,
                                                             mode="similarity")
    hierarchy = HierarchicalNodeParser.from_defaults().get_nodes_from_documents(documents)
    parents = NodeStore()
    parents.add_documents(hierarchy)
    leaves = VectorStoreIndex(_unique(get_leaf_nodes(hierarchy)), embedder=embedder)
    merging = AutoMergingRetriever(leaves.as_retriever(similarity_top_k=12, mode="similarity"),
                                   parents)
    window_nodes = SentenceWindowNodeParser(window_size=3).get_nodes_from_documents(documents)
    sentences = VectorStoreIndex(window_nodes, embedder=embedder).as_retriever(
        similarity_top_k=TOP_K, mode="similarity")
    replace = MetadataReplacementPostProcessor(target_metadata_key="window")
    return {
        "plain": plain.retrieve,
        "auto-merging": lambda q: merging.retrieve(q)[:TOP_K],
        "sentence window": lambda q: replace.postprocess(sentences.retrieve(q), q),
    }


def _unique(nodes: list) -> list:
    # HierarchicalNodeParser can give two overlapping parents the same child span, hence the
    # same node id (reported as a chunking bug); the index refuses duplicates, so keep one.
    return list({node.node_id: node for node in nodes}.values())


def score(retrieve: Callable[[str], list], questions: list[Question]) -> dict[str, float]:
    found, chars, started = [], [], time.perf_counter()
    for q in questions:
        context = "\n".join(n.node.text for n in retrieve(q.question))
        found.append(fmean(gold_found(q.gold, context)))
        chars.append(len(context))
    ms = (time.perf_counter() - started) / len(questions) * 1000
    return {"gold in context": fmean(found), "context chars": fmean(chars), "ms/query": ms}


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row]:
    corpus = corpus or corpus_dir()
    questions = [q for q in load_questions()
                 if q.answerable and q.collection in COLLECTIONS]
    files = sorted({corpus / q.collection / f for q in questions for f in q.files})
    documents = SimpleDirectoryReader(input_files=files).load_data()
    started = time.perf_counter()
    retrievers = build_retrievers(documents, default_embedder())
    build_s = time.perf_counter() - started
    rows = [Row("advanced retrieval", "questions", len(questions),
                note=f"{len(files)} files of {', '.join(COLLECTIONS)}"),
            Row("advanced retrieval", "build the three indexes", build_s, "s")]
    for name, retrieve in retrievers.items():
        for metric, value in score(retrieve, questions).items():
            unit = "ms" if metric == "ms/query" else ""
            rows.append(Row("advanced retrieval", f"{metric}, {name}", value, unit))
    return rows


ADVANCED = ("auto_merging", "sentence_window", "query_fusion", "hyde", "llm_rerank",
            "cross_encoder")


def advanced_vs_plain(index: Any, questions: list[Question],
                      score_ranking: Callable[[list[str], Question], dict], *, top_k: int,
                      bases: tuple[str, ...] = ("similarity",)) -> dict[str, dict[str, Any]]:
    """Per advanced retriever over each base retrieval mode (plain vector retrieval is
    "standard (similarity)"): per-question scores (the caller's ``score_ranking(texts,
    question)``), ms per query and characters of the top 4; or the reason it cannot run
    offline (``{"skipped": reason}``, once, under the first base)."""
    llm = ExtractiveLLM()
    results: dict[str, dict[str, Any]] = {}
    for base in bases:
        for name in ("standard", *ADVANCED):
            key = f"{name} ({base})"
            try:
                retriever = build_retriever(name, index, llm=llm, top_k=top_k, mode=base)
            except ConfigError as exc:
                if base == bases[0]:
                    results[name] = {"skipped": str(exc)}
                continue
            results[key] = _measure(retriever, questions, score_ranking)
    return results


def _measure(retriever: Any, questions: list[Question],
             score_ranking: Callable[[list[str], Question], dict]) -> dict[str, Any]:
    retriever.retrieve(questions[0].question)  # warm-up: model load is not a query's cost
    scores, chars, started = {}, [], time.perf_counter()
    for q in questions:
        texts = [s.node.text for s in retriever.retrieve(q.question)]
        scores[q.id] = score_ranking(texts, q)
        chars.append(sum(len(t) for t in texts[:TOP_K]))
    ms = (time.perf_counter() - started) / len(questions) * 1000
    return {"scores": scores, "ms": ms, "chars@4": fmean(chars)}


if __name__ == "__main__":
    from benchmarks.harness import format_table

    sys.stdout.write(format_table(run()) + "\n")
