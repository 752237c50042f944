"""The keyword-analysis and fusion variants the default hybrid retrieval was chosen among.

``bench_retrieval`` measures the retrieval modes as users get them; this measures the choices
behind the default "hybrid" mode, so the choice can be checked and re-made. Each question is
embedded once (one batch) and each side's candidates are fetched once, 100 deep; a variant is
then pure arithmetic over those lists: keyword rankings with another analyzer or other k1/b,
fusion by another method, weight or candidate depth, with or without each side's best nodes kept
in the top 10 (``side_heads``), or a per-document cap on the fused list.
The rankings go through the same ``KeywordIndex``, ``VectorStoreIndex.search`` and
``ragcore.search.fusion`` code the retrievers use, so the default variant's row matches the "hybrid"
mode's (up to batch-versus-single embedding rounding).

Columns: nDCG@10, recall@10, recall@4 and MRR@10 over all questions, nDCG@10 per question
kind, and how many questions the variant ranks better / worse than default BM25 (nDCG@10):
with 65 questions a difference of 0.01 in the mean is within noise, a consistent win is not.
Fusion does not depend on how many results are kept, so the "20/side" row's recall@4 is what
the engines' default top 4 (20 candidates per side) gets.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from statistics import fmean
from typing import Any, Callable

import numpy as np

from ragcore.search import analysis, lexical
from ragcore.retrieval.retrievers import HYBRID_HEAD_SHARE
from ragcore.search.fusion import fuse, with_side_heads
from ragcore.index.keyword import KeywordIndex
from ragcore.types import ScoredNode

DEPTH = 100  # candidates fetched per side, the deepest any variant uses
K = 10

# Lucene's EnglishAnalyzer stop set (33 words), for comparison with Snowball's list.
LUCENE_STOPWORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then "
    "there these they this to was will with".split()
)


@dataclass(frozen=True, slots=True)
class Variant:
    """One way of ranking: a keyword setup, a fusion (None: keyword or dense alone), a cap."""

    name: str
    analyzer: str = "snowball"  # a key of ANALYZERS
    k1: float = 1.2
    b: float = 0.75
    side: str = "fused"  # "dense", "keyword" or "fused"
    fusion: str = "relative_score"
    alpha: float = 0.5
    candidates: int = 50
    per_document: int | None = None  # keep at most this many chunks of one document
    side_heads: int = K // HYBRID_HEAD_SHARE  # each side's best kept in the top K (the default)


def _with_stopwords(stopwords: frozenset[str], stem: Callable[[str], str]) -> Callable:
    @lru_cache(maxsize=None)
    def analyze(word: str) -> str:
        word = word.lower()
        if word in stopwords or (len(word) < 2 and not word.isdigit()):
            return ""
        return stem(word)

    return analyze


ANALYZERS: dict[str, Callable[[str], str]] = {
    "light": lexical.term,  # before: the extractive answerer's stemmer and stoplist
    "snowball": analysis.term,  # now: Snowball stemmer, Snowball stopwords
    "snowball, Lucene stopwords": _with_stopwords(LUCENE_STOPWORDS, analysis.stem),
    "light, Snowball stopwords": _with_stopwords(analysis.STOPWORDS, lexical.stem),
}

VARIANTS = (
    Variant("dense (MiniLM)", side="dense"),
    Variant("BM25 light stemmer, k1 1.5 (before)", analyzer="light", k1=1.5, side="keyword"),
    Variant("BM25 Snowball, k1 1.2 b 0.75 (default)", side="keyword"),
    Variant("BM25 Snowball, k1 0.9 b 0.4 (Anserini)", k1=0.9, b=0.4, side="keyword"),
    Variant("BM25 Snowball + Lucene stopwords", analyzer="snowball, Lucene stopwords",
            side="keyword"),
    Variant("BM25 light + Snowball stopwords", analyzer="light, Snowball stopwords",
            side="keyword"),
    Variant("RRF k60, 10/side, light BM25 (before)", analyzer="light", k1=1.5,
            fusion="reciprocal_rank", candidates=10),
    Variant("RRF k60, 10/side", fusion="reciprocal_rank", candidates=10),
    Variant("RRF k60, 50/side", fusion="reciprocal_rank", candidates=50),
    Variant("relative a0.5, 10/side", candidates=10),
    Variant("relative a0.5, 20/side", candidates=20),
    Variant("relative a0.5, 50/side (default)"),
    Variant("relative a0.5, 50/side, no side heads", side_heads=0),
    Variant("relative a0.5, 100/side", candidates=100),
    Variant("relative a0.5, 50/side, light BM25", analyzer="light", k1=1.5),
    Variant("relative a0.3 (words 0.7), 50/side", alpha=0.3),
    Variant("relative a0.7 (meaning 0.7), 50/side", alpha=0.7),
    Variant("dist-based a0.5, 50/side", fusion="dist_based_score"),
    Variant("relative a0.5, 50/side, 1 chunk/document", per_document=1),
    Variant("relative a0.5, 50/side, 2 chunks/document", per_document=2),
)
BASELINE = "BM25 Snowball, k1 1.2 b 0.75 (default)"


def rank_variants(index: Any, questions: list[Any]) -> dict[str, list[list[ScoredNode]]]:
    """Each variant's top-10 ranking of every question."""
    vectors = np.asarray(index.embedder.embed_batch([q.question for q in questions]))
    dense = [index.search(v, top_k=DEPTH) for v in vectors]
    nodes = {n.node_id: n for n in index.all_nodes()}
    keyword_indexes = {
        name: KeywordIndex.build(nodes.values(), analyzer=analyze)
        for name, analyze in ANALYZERS.items()
    }
    rankings: dict[str, list[list[ScoredNode]]] = {}
    for variant in VARIANTS:
        keywords = keyword_indexes[variant.analyzer]
        rankings[variant.name] = [
            _rank(variant, d, _keyword(keywords, nodes, q.question, variant))
            for q, d in zip(questions, dense)
        ]
    return rankings


def _keyword(keywords: KeywordIndex, nodes: dict, question: str, variant: Variant) -> list:
    hits = keywords.search(question, top_k=DEPTH, k1=variant.k1, b=variant.b)
    return [ScoredNode(nodes[i], score) for i, score in hits]


def _rank(variant: Variant, dense: list, keyword: list) -> list[ScoredNode]:
    if variant.side == "dense":
        return dense[:K]
    if variant.side == "keyword":
        return keyword[:K]
    c = variant.candidates
    sides = [dense[:c], keyword[:c]]
    fused = fuse(sides, method=variant.fusion, weights=(variant.alpha, 1 - variant.alpha))
    if variant.per_document is not None:
        fused = _cap_per_document(fused, variant.per_document)
    return with_side_heads(fused, sides, heads=variant.side_heads, top_k=K)


def _cap_per_document(ranking: list[ScoredNode], cap: int) -> list[ScoredNode]:
    seen: Counter[str] = Counter()
    kept = []
    for scored in ranking:
        seen[scored.node.ref_doc_id] += 1
        if seen[scored.node.ref_doc_id] <= cap:
            kept.append(scored)
    return kept


def summarize(scores: dict[str, dict[str, dict]], questions: list[Any]) -> list[dict]:
    """Per variant: the mean measures, nDCG@10 by kind, questions better/worse than BM25."""
    ids = [q.id for q in questions]
    kinds = sorted({q.kind for q in questions})
    base = scores[BASELINE]
    summaries = []
    for name, per_question in scores.items():
        means = {m: fmean(per_question[i][m] for i in ids) for m in MEASURES}
        by_kind = {k: fmean(per_question[q.id]["nDCG@10"] for q in questions if q.kind == k)
                   for k in kinds}
        ndcg = [(per_question[i]["nDCG@10"], base[i]["nDCG@10"]) for i in ids]
        better = sum(mine > theirs + 1e-9 for mine, theirs in ndcg)
        worse = sum(mine < theirs - 1e-9 for mine, theirs in ndcg)
        summaries.append({"name": name, **means, "kinds": by_kind, "vs BM25": f"{better}/{worse}"})
    return summaries


MEASURES = ("nDCG@10", "recall@10", "recall@4", "MRR@10")


def variant_table(summaries: list[dict]) -> tuple[list[str], list[list[str]]]:
    """The header and lines of the variants' table."""
    kinds = list(summaries[0]["kinds"])
    header = ["variant", *MEASURES, *(f"nDCG {k}" for k in kinds), "vs BM25 +/-"]
    lines = [[s["name"], *(f"{s[m]:.3f}" for m in MEASURES),
              *(f"{s['kinds'][k]:.3f}" for k in kinds), s["vs BM25"]] for s in summaries]
    return header, lines
