"""The advanced retrievers by name, each built over one ordinary index at question time: what
the app's "Retriever" choice, its comparison view and the retrieval benchmark offer.

An index made by the upload page is split by the sentence splitter; the advanced retrievers
LlamaIndex builds with other parsers are adapted to it, with nothing re-embedded ahead of time:

- standard: the index's own retriever (by meaning, keywords or both);
- auto_merging: the chunks are the leaves, each run of 4 consecutive chunks of a document a
  parent (``ChunkGroups``); 3x top-k chunks are fetched and merged into their parents;
- sentence_window: the candidate chunks split into sentences, those embedded and ranked, each
  best sentence shown to the LLM with 3 sentences each side (``SentenceWindowRetriever``);
- query_fusion: the question rewritten into 3 more queries by the LLM, the rankings fused;
- hyde: searched with the embedding of an answer the LLM imagines (by meaning only);
- llm_rerank: 3x top-k candidates, the LLM scores each, the best top-k kept;
- cross_encoder: 3x top-k candidates reordered by a cross-encoder model on disk;
- router: the documents of the best passages become one engine each; a selector picks one
  (the LLM, or by meaning with the extractive backend) and only it answers;
- sub_question: the question split into one question per such document, the answers combined.

Choices that need an LLM that writes text are unavailable with the offline extractive backend
(``unavailable_reason`` says why); router and sub-question have offline paths and stay on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from ..retrieval.auto_merging import AutoMergingRetriever, ChunkGroups
from ..errors import ConfigError, RagcoreError
from ..retrieval.hyde import HyDERetriever
from ..llms.base import LLM, writes_free_text
from ..postprocess import MetadataReplacementPostProcessor, NodePostprocessor
from ..query import QueryEngine, apply_postprocessors
from ..retrieval.query_fusion import QueryFusionRetriever
from ..retrieval.rerank import LLMRerank, SentenceTransformerRerank
from ..retrieval.retrievers import Retriever, query_text
from .router import EmbeddingSingleSelector, LLMSingleSelector, RouterQueryEngine
from ..retrieval.sentence_window import SentenceWindowRetriever
from .sub_question import SubQuestionQueryEngine
from ..synthesis import Response, ResponseMode, Synthesizer
from ..tools import QueryEngineTool
from ..trace import Trace
from ..types import ScoredNode

CANDIDATES_PER_RESULT = 3  # rerankers and auto-merging look at 3x top-k candidates
MAX_SOURCES = 4  # documents the router and sub-questions choose among


@dataclass(frozen=True, slots=True)
class RetrieverChoice:
    """One way of finding passages: its label, a one-line explanation, what it needs."""

    name: str
    label: str
    explanation: str
    needs: str = ""  # "", "llm" (a model that writes text) or "cross_encoder" (a folder)
    answers: bool = False  # an engine that answers (router, sub-question), not a retriever


CHOICES: dict[str, RetrieverChoice] = {c.name: c for c in (
    RetrieverChoice("standard", "Standard",
                    "The index's passages ranked against the question, as chosen in Search by."),
    RetrieverChoice("auto_merging", "Auto-merging",
                    "When several neighbouring passages of a document are found, read them as "
                    "one larger passage."),
    RetrieverChoice("sentence_window", "Sentence window",
                    "Find the single best sentences, then show each with the sentences around "
                    "it."),
    RetrieverChoice("query_fusion", "Query fusion",
                    "The model rewrites the question into several searches; their results are "
                    "merged.", needs="llm"),
    RetrieverChoice("hyde", "HyDE",
                    "The model imagines an answer; passages worded like it are found (by "
                    "meaning).", needs="llm"),
    RetrieverChoice("llm_rerank", "LLM rerank",
                    "Fetch more passages; the model scores each one and keeps the best.",
                    needs="llm"),
    RetrieverChoice("cross_encoder", "Cross-encoder rerank",
                    "Fetch more passages; a cross-encoder model reads each with the question and "
                    "keeps the best.", needs="cross_encoder"),
    RetrieverChoice("router", "Router",
                    "Pick the one document most likely to answer, and answer from it alone.",
                    answers=True),
    RetrieverChoice("sub_question", "Sub-questions",
                    "Ask each of the top documents its own question, then combine the answers "
                    "(for comparing documents).", answers=True),
)}


def unavailable_reason(name: str, *, llm: LLM, cross_encoder: str | None = None
                       ) -> str | None:
    """Why choice ``name`` cannot run with ``llm`` and the settings, or None when it can."""
    needs = _choice(name).needs
    if needs == "llm" and not writes_free_text(llm):
        return ("needs a language model that writes text; the offline extractive answerer only "
                "quotes: connect Ollama or an OpenAI-compatible server in Settings")
    if needs == "cross_encoder" and not cross_encoder:
        return ("needs a cross-encoder model on disk: give its folder (Cross-encoder "
                "folder, or the RAGCORE_CROSS_ENCODER environment variable)")
    return None


@dataclass(slots=True)
class PostprocessedRetriever:
    """A retriever followed by postprocessors, traced like a query engine's."""

    retriever: Retriever
    postprocessors: Sequence[NodePostprocessor] = ()

    def retrieve(self, query: Any, *, trace: Trace | None = None) -> list[ScoredNode]:
        question = query_text(query)
        found = self.retriever.retrieve(question, trace=trace)
        return apply_postprocessors(self.postprocessors, found, question, trace)


def build_retriever(name: str, index: Any, *, llm: LLM, top_k: int = 4, mode: str = "hybrid",
                    cross_encoder: str | None = None) -> Retriever:
    """The retriever of choice ``name`` over ``index`` (not for router and sub-question)."""
    choice = _choice(name)
    if choice.answers:
        raise ConfigError(f"{choice.label} answers questions itself: use build_engine")
    reason = unavailable_reason(name, llm=llm, cross_encoder=cross_encoder)
    if reason:
        raise ConfigError(f"the {choice.label} retriever {reason}")
    wide = max(top_k * CANDIDATES_PER_RESULT, 10)
    if name == "standard":
        return index.as_retriever(similarity_top_k=top_k, mode=mode)
    if name == "auto_merging":
        groups = ChunkGroups(index)
        merging = AutoMergingRetriever(groups.leaves(index.as_retriever(
            similarity_top_k=wide, mode=mode)), groups)
        return _First(merging, top_k)
    if name == "sentence_window":
        sentences = SentenceWindowRetriever(index.as_retriever(similarity_top_k=wide, mode=mode),
                                            index, similarity_top_k=top_k)
        return PostprocessedRetriever(
            sentences, [MetadataReplacementPostProcessor(target_metadata_key="window")])
    if name == "query_fusion":
        return QueryFusionRetriever([index.as_retriever(similarity_top_k=top_k, mode=mode)],
                                    llm=llm, similarity_top_k=top_k, num_queries=4)
    if name == "hyde":
        return HyDERetriever(index.as_retriever(similarity_top_k=top_k, mode="similarity"),
                             llm=llm)
    judge = (LLMRerank(llm=llm, top_n=top_k, choice_batch_size=wide) if name == "llm_rerank"
             else SentenceTransformerRerank(model=str(cross_encoder), top_n=top_k))
    return PostprocessedRetriever(index.as_retriever(similarity_top_k=wide, mode=mode), [judge])


def build_engine(name: str, index: Any, *, llm: LLM, top_k: int = 4, mode: str = "hybrid",
                 response_mode: ResponseMode | str = ResponseMode.COMPACT,
                 postprocessors: Sequence[NodePostprocessor] = (),
                 cross_encoder: str | None = None) -> Any:
    """What answers with choice ``name``: ``.query(question, trace=)`` gives a Response."""
    if not _choice(name).answers:
        retriever = build_retriever(name, index, llm=llm, top_k=top_k, mode=mode,
                                    cross_encoder=cross_encoder)
        return QueryEngine(retriever, Synthesizer(llm, response_mode=response_mode),
                           postprocessors=postprocessors)
    return DocumentsEngine(name, index, llm=llm, top_k=top_k, mode=mode,
                           response_mode=response_mode, postprocessors=postprocessors)


class DocumentsEngine:
    """Router or sub-questions over the documents of the question's best passages: each
    document one query engine (search limited to it), described by its name and opening."""

    def __init__(self, name: str, index: Any, *, llm: LLM, top_k: int, mode: str,
                 response_mode: ResponseMode | str,
                 postprocessors: Sequence[NodePostprocessor]) -> None:
        self.name, self.index, self.llm = name, index, llm
        self.top_k, self.mode, self.response_mode = top_k, mode, response_mode
        self.postprocessors = list(postprocessors)

    def query(self, question: Any, *, trace: Trace | None = None) -> Response:
        question = query_text(question)
        trace = Trace() if trace is None else trace
        passages: list[ScoredNode] = []  # what the documents' engines retrieved
        tools = self.tools(question, trace, passages)
        if self.name == "router":
            selector: Any = (LLMSingleSelector(llm=self.llm) if writes_free_text(self.llm)
                             else EmbeddingSingleSelector(embedder=self.index.embedder))
            return RouterQueryEngine(tools, selector=selector).query(question, trace=trace)
        engine = SubQuestionQueryEngine(tools, llm=self.llm, response_mode=self.response_mode)
        response = engine.query(question, trace=trace)
        # the passages behind the sub-answers are the sources people check
        response.source_nodes = passages or response.source_nodes
        return response

    def tools(self, question: str, trace: Trace, passages: list[ScoredNode]
              ) -> list[QueryEngineTool]:
        """One tool per document of the best passages (at most ``MAX_SOURCES``)."""
        hits = self.index.as_retriever(similarity_top_k=20, mode=self.mode).retrieve(
            question, trace=trace)
        doc_ids = list(dict.fromkeys(h.node.ref_doc_id for h in hits if h.node.ref_doc_id))
        doc_ids = doc_ids[:MAX_SOURCES]
        if not doc_ids:
            raise ConfigError("no passage of this index matches the question: nothing to route")
        tools = []
        for number, doc_id in enumerate(doc_ids, start=1):
            nodes = self.index.nodes_for_doc(doc_id)
            title = _title(nodes[0].metadata if nodes else {}, doc_id)
            opening = " ".join((nodes[0].text if nodes else "").split())[:300]
            engine = _SourceEngine(QueryEngine(
                self.index.as_retriever(similarity_top_k=self.top_k, mode=self.mode,
                                        doc_ids=[doc_id]),
                Synthesizer(self.llm, response_mode=self.response_mode),
                postprocessors=self.postprocessors), passages)
            tools.append(QueryEngineTool(engine, name=f"source_{number}",
                                         description=f"{title}: {opening}"))
        trace.notes["sources"] = {t.metadata.name: t.metadata.description[:120] for t in tools}
        return tools


@dataclass(slots=True)
class _SourceEngine:
    """One document's engine, adding the passages it answered from to ``passages``."""

    engine: QueryEngine
    passages: list[ScoredNode]

    def query(self, question: str, *, trace: Trace | None = None) -> Response:
        response = self.engine.query(question, trace=trace)
        self.passages.extend(response.source_nodes)
        return response


@dataclass(slots=True)
class _First:
    retriever: Retriever
    top_k: int

    def retrieve(self, query: Any, *, trace: Trace | None = None) -> list[ScoredNode]:
        return self.retriever.retrieve(query, trace=trace)[: self.top_k]


def _title(metadata: dict[str, Any], doc_id: str) -> str:
    name = metadata.get("title") or metadata.get("file_name") or doc_id
    page = metadata.get("page_label") or metadata.get("page")
    return f"{name} (page {page})" if page else str(name)


def _choice(name: str) -> RetrieverChoice:
    try:
        return CHOICES[name]
    except KeyError:
        raise ConfigError(f"retriever {name!r} is unknown: choose from "
                          f"{', '.join(CHOICES)}") from None


@dataclass(slots=True)
class RetrieverResult:
    """One retriever's passages and answer for the compared question, with its cost."""

    name: str
    answer: str
    source_nodes: list[ScoredNode]
    trace: Trace
    seconds: float
    error: str | None = None  # set when this retriever failed (the others still ran)

    @property
    def llm_calls(self) -> int:
        return len(self.trace.llm_calls)


def iter_compare_retrievers(question: str, engines: dict[str, Any]) -> Iterator[RetrieverResult]:
    """Each engine (by choice name, from ``build_engine``) asked ``question`` in turn, its own
    trace each; a failing one reports its error and the rest still run."""
    for name, engine in engines.items():
        trace = Trace()
        start = time.perf_counter()
        answer, nodes, error = "", [], None
        try:
            response = engine.query(question, trace=trace)
            answer, nodes = response.text, list(response.source_nodes)
        except RagcoreError as exc:
            error = f"{type(exc).__name__}: {exc}"
        yield RetrieverResult(name, answer, nodes, trace, time.perf_counter() - start, error)
