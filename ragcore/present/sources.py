"""Which sources an answer lists: the relevant and the used ones first, weak ones on request.

A retrieved passage is shown by default when its score clears the relevance floor of the
retrieval mode that found it, or when the answer used it (quoted or supported by it, see
``support.py``); the rest are listed as hidden, for a "show N more sources" control. An answer
made in ``generation`` mode was given no passages, so it lists none. Shared by the app's Query
and Chat pages and the CLI, so all three list the same sources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from ..grounding import Verdict
from ..llms.cut_short import split_cut_short
from ..types import ScoredNode
from .support import Citations, SourceUse, cite

# Retrieval scores mean different things per mode, so each mode has its own floor.
# Vector search (similarity, mmr) scores are cosines. With all-MiniLM-L6-v2 over PEP 8, the State
# of the Union, PEP 20 and RFC 3986, passages from documents unrelated to a question scored up to
# 0.33 (0.38 when the wrong document shares the question's words), while the best on-topic
# passage scored 0.42-0.71; on-topic runners-up fall off with the best one. So a passage must
# reach both SIMILARITY_FLOOR and SIMILARITY_SHARE of the best passage's score.
SIMILARITY_FLOOR = 0.3
SIMILARITY_SHARE = 0.6
# BM25 scores are unbounded and depend on the corpus: only the ratio to the best one means
# something. A passage with under half the best score matches only the question's common words.
KEYWORD_SHARE = 0.5
# Fused (relative-score) scores are half the passage's 0..1-scaled similarity plus half its
# scaled BM25: a passage only one search found scores at most 0.5, one both rank first 1. 0.6 of
# the best keeps passages both searches rank well when the best was found by both, and keeps
# what one search ranks near its top when no passage was found by both.
HYBRID_SHARE = 0.6
NO_CONTEXT_MODES = frozenset({"generation"})
WITHOUT_SOURCES = "This mode answers from the model alone: it was given no passages."


@dataclass(frozen=True, slots=True)
class ListedSource:
    """A retrieved passage as listed under an answer: its rank, the node, what the answer used."""

    number: int
    scored: ScoredNode
    use: SourceUse


@dataclass(frozen=True, slots=True)
class SourceListing:
    """Sources shown by default, sources hidden below the relevance floor, and why."""

    shown: tuple[ListedSource, ...]
    hidden: tuple[ListedSource, ...] = ()
    unsupported: tuple[str, ...] = ()  # answer sentences no passage supports
    measure: str = ""  # how support was judged (generated answers)
    without_sources: str = ""  # set when the answer's mode uses no passages
    verdict: Verdict | None = None  # the grounding verdict, when the question was known
    question: str = ""
    marked: bool = False  # a sentence of the answer as shown is marked (not in the documents)

    @property
    def total(self) -> int:
        return len(self.shown) + len(self.hidden)


def relevance_floor(scores: Sequence[float | None], retrieval_mode: str) -> float:
    """The lowest score shown by default among ``scores`` found by ``retrieval_mode``."""
    known = [s for s in scores if s is not None]
    best = max(known, default=0.0)
    if retrieval_mode in ("similarity", "mmr"):
        return max(SIMILARITY_FLOOR, SIMILARITY_SHARE * best)
    if retrieval_mode == "keyword":
        return KEYWORD_SHARE * best
    if retrieval_mode == "hybrid":
        return HYBRID_SHARE * best
    raise ValueError(
        f"retrieval mode {retrieval_mode!r} has no relevance floor: use similarity, mmr, "
        "keyword or hybrid"
    )


def list_sources(
    nodes: Sequence[ScoredNode],
    citations: Citations,
    *,
    retrieval_mode: str,
    response_mode: str | None = None,
    question: str = "",
) -> SourceListing:
    """``nodes`` split into shown and hidden, each with what the answer used of it.

    ``citations`` come from ``support.cite`` over the nodes' texts in the same order;
    ``response_mode`` is the query's synthesis mode (None for chat replies).
    """
    if not uses_passages(response_mode):
        return SourceListing((), without_sources=WITHOUT_SOURCES)
    if len(citations.sources) != len(nodes):
        raise ValueError(
            f"citations cover {len(citations.sources)} passages but {len(nodes)} sources were "
            "given: cite the texts of exactly these nodes, in order"
        )
    floor = relevance_floor([n.score for n in nodes], retrieval_mode)
    listed = [
        ListedSource(number, scored, use)
        for number, (scored, use) in enumerate(zip(nodes, citations.sources), 1)
    ]
    shown = tuple(s for s in listed if _shown(s, floor))
    hidden = tuple(s for s in listed if not _shown(s, floor))
    return SourceListing(shown, hidden, citations.unsupported, citations.measure,
                         verdict=citations.verdict, question=question)


def answer_sources(
    answer: str,
    nodes: Sequence[ScoredNode],
    *,
    retrieval_mode: str,
    extractive: bool,
    response_mode: str | None = None,
    embedder: Any = None,
    question: str = "",
    judge: Any = None,
    held: Callable[[str], bool] | None = None,
) -> SourceListing:
    """Cite ``answer`` against ``nodes`` and list them: ``answer_citations`` then
    ``list_sources``; with ``question``, a generated answer is judged by the grounding verdict
    (``judge``: the LLM asked whether a passage states each claim, when it can)."""
    citations = answer_citations(answer, nodes, retrieval_mode=retrieval_mode,
                                 extractive=extractive, response_mode=response_mode,
                                 embedder=embedder, question=question, judge=judge, held=held)
    return list_sources(nodes, citations, retrieval_mode=retrieval_mode,
                        response_mode=response_mode, question=question)


def answer_citations(
    answer: str,
    nodes: Sequence[ScoredNode],
    *,
    retrieval_mode: str,
    extractive: bool,
    response_mode: str | None = None,
    embedder: Any = None,
    question: str = "",
    judge: Any = None,
    held: Callable[[str], bool] | None = None,
) -> Citations:
    """What ``answer`` used of each of ``nodes`` (``cite``), with what the verdict reads beside
    them: the documents' titles (``document_subjects``) and ``held``, the index's words. The one
    way an answer is checked, for the engines and for the app's pages alike."""
    if not uses_passages(response_mode):
        return Citations(())
    answer = split_cut_short(answer)[0]  # "(Stopped early: ...)" is ragcore's, not a claim
    return cite(answer, [n.node.text for n in nodes], extractive=extractive,
                embedder=support_embedder(embedder, retrieval_mode), question=question,
                judge=judge, subjects=document_subjects(nodes), held=held)


def document_subjects(nodes: Sequence[ScoredNode]) -> tuple[str, ...]:
    """What the passages' documents are about, by name: their titles and file names ("TOML",
    "toml.md"), for the verdict to know a sentence of them need not restate it."""
    names = set()
    for scored in nodes:
        metadata = scored.node.metadata
        names.update(str(metadata[key]) for key in ("title", "card_title") if metadata.get(key))
        if metadata.get("file_name"):
            names.add(str(metadata["file_name"]).rsplit(".", 1)[0])
    return tuple(sorted(names))


def uses_passages(response_mode: str | None) -> bool:
    """False for response modes that answer without the retrieved passages (generation)."""
    return response_mode not in NO_CONTEXT_MODES


def support_embedder(embedder: Any, retrieval_mode: str) -> Any:
    """The embedder to measure support with: the index's, unless the search was by keywords.

    A keyword search never loaded the embedding model, and citations alone must not load it
    (seconds on a cold start); support is then measured lexically.
    """
    return None if retrieval_mode == "keyword" else embedder


def _shown(source: ListedSource, floor: float) -> bool:
    score = source.scored.score
    return source.use.used or score is None or score >= floor
