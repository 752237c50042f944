"""HyDE: search with the embedding of a hypothetical answer (Gao et al. 2022, "Precise
Zero-Shot Dense Retrieval without Relevance Labels"; LlamaIndex's ``HyDEQueryTransform``).

A question and the passage that answers it are worded differently; an answer the LLM imagines
is worded like the passage. The LLM writes one (``hypothetical_document_messages``, from
``ragcore.prompts.retrieval.HYDE``), the embedder embeds it (and, with ``include_original``,
the question too; the vectors are averaged, as LlamaIndex does), and the vector retriever
searches with the mean (``retrieve_by_vector``). The made-up text never reaches the answer: only the retrieved
passages do. The offline extractive backend writes nothing new, so it searches with the
question alone and the trace says so.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..embeddings.base import normalize
from ..errors import ConfigError
from ..llms.base import LLM, complete_traced, writes_free_text
from ..prompts.retrieval import HYDE
from ..trace import Trace
from ..types import Message, ScoredNode

def hypothetical_document_messages(query: str) -> list[Message]:
    """The prompt asking for a passage that answers ``query``."""
    return HYDE.format(query=query)


class HyDERetriever:
    """A vector retriever searching with the embedding of an imagined answer."""

    def __init__(self, retriever: Any, *, llm: LLM, include_original: bool = True) -> None:
        if not callable(getattr(retriever, "retrieve_by_vector", None)):
            raise ConfigError(
                "HyDE needs a vector retriever (retrieve_by_vector): "
                "index.as_retriever(mode='similarity')"
            )
        self.retriever = retriever
        self.llm = llm
        self.include_original = bool(include_original)

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        texts = self.search_texts(query, trace)
        embedder = self.retriever.index.embedder
        stage = trace.stage("embed hypothetical answer", texts=len(texts)) if trace else None
        if stage is None:
            vector = _mean(embedder.embed_batch(texts))
        else:
            with stage:
                vector = _mean(embedder.embed_batch(texts))
        return self.retriever.retrieve_by_vector(vector, trace=trace)

    def search_texts(self, query: str, trace: Trace | None = None) -> list[str]:
        """What is embedded: the hypothetical passage, and the question when asked for."""
        if not writes_free_text(self.llm):
            if trace is not None:
                trace.notes["hyde"] = ("the extractive backend imagines no answer: the "
                                       "question alone was searched")
            return [query]
        passage = complete_traced(self.llm, hypothetical_document_messages(query), trace,
                                  "hypothetical answer").strip()
        if trace is not None:
            trace.notes["hyde_passage"] = passage
        texts = [passage] if passage else []
        return [*texts, query] if self.include_original or not texts else texts


def _mean(vectors: np.ndarray) -> np.ndarray:
    return normalize(np.asarray(vectors, dtype=np.float32).mean(axis=0, keepdims=True))[0]
