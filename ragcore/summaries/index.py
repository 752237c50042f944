"""Summary indexes over an index's chunks: LlamaIndex's SummaryIndex and DocumentSummaryIndex.

``SummaryIndex`` answers from *every* node, not the top k: the question and all the nodes go to the
synthesizer (``tree_summarize`` by default, or ``refine`` and the other modes), which is how
"summarise this" is answered with a language model. ``summarize_document`` makes one document's
summary: with a model, a SummaryIndex over the document's chunks; offline (no model, or the
extractive answerer), the extractive summary of ``ragcore.summaries.summarize`` over the chunks'
stored vectors. ``DocumentSummaryIndex`` keeps one summary per document and retrieves by summary
first (the documents whose summaries are nearest the question), then by chunks within those
documents. Both read chunks through ``ChunkSource``, which ``VectorStoreIndex`` is.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Protocol, Sequence

import numpy as np

from ..embeddings.base import Embedder, embed_query, embed_texts
from ..errors import ConfigError
from ..llms.base import LLM
from .summarize import summarize_extractive
from ..synthesis import Response, ResponseMode, Synthesizer
from ..trace import Trace
from ..types import Node, ScoredNode

SUMMARY_QUESTION = "Summarise the main points of this text for someone who has not read it."
EXTRACTIVE = "extractive"
# Bumped when offline summaries are picked differently: summaries cached under another version
# are made again (2: body sentences only, a line per main section).
EXTRACTIVE_VERSION = "2"


class ChunkSource(Protocol):
    """What summaries read from an index (``VectorStoreIndex`` has all of it)."""

    @property
    def embedder(self) -> Embedder: ...

    def nodes_for_doc(self, doc_id: str) -> list[Node]: ...

    def get_vectors(self, node_ids: Sequence[str]) -> np.ndarray: ...

    def search(
        self, vector: np.ndarray, *, top_k: int = 4, doc_ids: Sequence[str] | None = None
    ) -> list[ScoredNode]: ...


class SummaryIndex:
    """Every node, read in full by the synthesizer for each question."""

    def __init__(self, nodes: Iterable[Node]) -> None:
        self.nodes = list(nodes)

    @classmethod
    def from_index(cls, index: ChunkSource, doc_ids: Iterable[str]) -> SummaryIndex:
        """The nodes of ``doc_ids`` in document order."""
        return cls(node for doc_id in doc_ids for node in index.nodes_for_doc(doc_id))

    def query(
        self,
        question: str,
        *,
        llm: LLM,
        response_mode: ResponseMode | str = ResponseMode.TREE_SUMMARIZE,
        trace: Trace | None = None,
    ) -> Response:
        """The answer to ``question`` from all the nodes (streamed when read)."""
        synthesizer = Synthesizer(llm, response_mode=response_mode)
        return synthesizer.synthesize(question, [ScoredNode(n) for n in self.nodes], trace=trace)


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    """One document's summary, how it was made ("extractive" or the model's name) and when
    (``made``: a date such as "27 November 2026"; "" for summaries kept before dates were)."""

    key: str
    title: str
    text: str
    method: str
    doc_ids: tuple[str, ...]
    made: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "text": self.text,
                "method": self.method, "doc_ids": list(self.doc_ids), "made": self.made}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DocumentSummary:
        return cls(str(data["key"]), str(data.get("title", "")), str(data["text"]),
                   str(data.get("method", "")), tuple(data.get("doc_ids", ())),
                   str(data.get("made", "")))


def is_offline(llm: LLM | None) -> bool:
    """Whether summaries are extractive: no model, or the extractive answerer."""
    return llm is None or getattr(llm, "model", "") == EXTRACTIVE


def summarize_nodes(
    index: ChunkSource,
    nodes: Sequence[Node],
    *,
    llm: LLM | None = None,
    max_chars: int = 1200,
    max_sentences: int = 6,
    trace: Trace | None = None,
    lines: bool = False,
) -> tuple[str, str]:
    """(summary text, method) of ``nodes``: tree_summarize with a model, extractive without;
    with ``lines``, an extractive summary with a line per section is a Markdown list."""
    if not nodes:
        return "", EXTRACTIVE
    if is_offline(llm):
        vectors = index.get_vectors([n.node_id for n in nodes])
        found = summarize_extractive(
            [n.text for n in nodes], index.embedder, vectors=vectors, max_chars=max_chars,
            max_sentences=max_sentences,
        )
        if trace is not None:
            trace.notes["summary"] = {"method": EXTRACTIVE, "chunks_read": found.chunks_read,
                                      "sentences_considered": found.sentences_considered}
        return (found.markdown if lines else found.text), EXTRACTIVE
    response = SummaryIndex(nodes).query(SUMMARY_QUESTION, llm=llm, trace=trace)
    return response.text, str(getattr(llm, "model", "") or "llm")


def summarize_document(
    index: ChunkSource,
    key: str,
    doc_ids: Sequence[str],
    *,
    title: str = "",
    llm: LLM | None = None,
    trace: Trace | None = None,
) -> DocumentSummary:
    """The summary of one document (all of ``doc_ids``: a PDF's pages are one document)."""
    nodes = SummaryIndex.from_index(index, doc_ids).nodes
    text, method = summarize_nodes(index, nodes, llm=llm, trace=trace, lines=True)
    return DocumentSummary(key, title or key, text, method, tuple(doc_ids), made=today())


def today() -> str:
    """The date a summary is made, as a person reads it ("27 November 2026")."""
    day = datetime.date.today()
    return f"{day.day} {day:%B %Y}"


class DocumentSummaryIndex:
    """One summary per document; retrieval by summary, then by chunks of the chosen documents."""

    def __init__(self, index: ChunkSource, summaries: Iterable[DocumentSummary]) -> None:
        self.index = index
        self.summaries = [s for s in summaries if s.text.strip()]
        texts = [f"{s.title}\n{s.text}" for s in self.summaries]
        self._vectors = embed_texts(index.embedder, texts) if texts else np.zeros((0, 0))

    @classmethod
    def build(
        cls,
        index: ChunkSource,
        documents: Mapping[str, tuple[str, Sequence[str]]],
        *,
        llm: LLM | None = None,
    ) -> DocumentSummaryIndex:
        """Summarise every document of ``documents`` (key -> (title, doc ids))."""
        return cls(index, [
            summarize_document(index, key, doc_ids, title=title, llm=llm)
            for key, (title, doc_ids) in documents.items()
        ])

    def summary(self, key: str) -> DocumentSummary | None:
        return next((s for s in self.summaries if s.key == key), None)

    def retrieve_summaries(
        self, question: str, *, top_docs: int = 1
    ) -> list[tuple[DocumentSummary, float]]:
        """The documents whose summaries are nearest ``question``, best first, with scores."""
        if top_docs < 1:
            raise ConfigError(f"top_docs ({top_docs}) must be at least 1")
        if not self.summaries:
            return []
        scores = self._vectors @ embed_query(self.index.embedder, question)
        best = np.argsort(-scores)[:top_docs]
        return [(self.summaries[i], float(scores[i])) for i in best]

    def retrieve(self, question: str, *, top_docs: int = 1, top_k: int = 4) -> list[ScoredNode]:
        """Chunks nearest ``question`` within the documents whose summaries are nearest it."""
        chosen = self.retrieve_summaries(question, top_docs=top_docs)
        doc_ids = [d for summary, _ in chosen for d in summary.doc_ids]
        if not doc_ids:
            return []
        vector = embed_query(self.index.embedder, question)
        return self.index.search(vector, top_k=top_k, doc_ids=doc_ids)
