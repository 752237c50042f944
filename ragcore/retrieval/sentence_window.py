"""Sentence-window parsing: one node per sentence, carrying the sentences around it.

A node is a single sentence, so its embedding is sharp and retrieval finds the exact sentence;
its metadata carries the ``window`` (the sentence with ``window_size`` sentences on each side)
and the ``original_text``. At query time ``MetadataReplacementPostProcessor(target_metadata_key=
"window")`` (``ragcore.postprocess``) shows the LLM the window instead of the lone sentence.
Both keys are hidden from the embedder and the LLM's metadata header, as in LlamaIndex's
``SentenceWindowNodeParser``.

Unlike the splitters in ``ragcore.chunking`` it has no token budget: sentences come from the
same sentence rule (``chunking.sentences``), with exact offsets into the document, stable ids
and prev/next links.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any, Sequence

import numpy as np

from ..chunking import sentences
from ..chunking.nodes import build_nodes, node_id
from ..errors import ConfigError, StoreError
from ..types import Document, MetadataMode, Node, ScoredNode

DEFAULT_WINDOW_SIZE = 3


class SentenceWindowNodeParser:
    """Documents to one node per sentence, each with its surrounding window in metadata."""

    def __init__(
        self,
        *,
        window_size: int = DEFAULT_WINDOW_SIZE,
        window_metadata_key: str = "window",
        original_text_metadata_key: str = "original_text",
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        if isinstance(window_size, bool) or not isinstance(window_size, int) or window_size < 0:
            raise ConfigError(f"window_size ({window_size!r}) must be a whole number of "
                              "sentences, e.g. 3")
        for name, key in (("window_metadata_key", window_metadata_key),
                          ("original_text_metadata_key", original_text_metadata_key)):
            if not isinstance(key, str) or not key:
                raise ConfigError(f"{name} ({key!r}) must be a non-empty metadata key")
        self.window_size = window_size
        self.window_metadata_key = window_metadata_key
        self.original_text_metadata_key = original_text_metadata_key
        self.include_metadata = include_metadata
        self.include_prev_next_rel = include_prev_next_rel

    @classmethod
    def from_defaults(cls, **options: Any) -> SentenceWindowNodeParser:
        """LlamaIndex's constructor (the same keywords)."""
        return cls(**options)

    def settings(self) -> dict[str, Any]:
        return {"window_size": self.window_size, "window_metadata_key": self.window_metadata_key,
                "original_text_metadata_key": self.original_text_metadata_key,
                "include_metadata": self.include_metadata}

    def get_nodes_from_documents(
        self, documents: Sequence[Document], **_progress: Any
    ) -> list[Node]:
        """Sentence nodes of every document, in order."""
        return [node for document in documents for node in self._document_nodes(document)]

    def _document_nodes(self, document: Document) -> list[Node]:
        spans = sentence_spans(document.text)
        salt = f"sentence-window/{self.window_size}"
        nodes = build_nodes(document, spans, salt=salt, include_metadata=self.include_metadata,
                            include_prev_next_rel=self.include_prev_next_rel)
        hidden = (self.window_metadata_key, self.original_text_metadata_key)
        for i, node in enumerate(nodes):
            around = nodes[max(0, i - self.window_size): i + self.window_size + 1]
            node.metadata[self.window_metadata_key] = " ".join(n.text for n in around)
            node.metadata[self.original_text_metadata_key] = node.text
            for keys in (node.excluded_embed_metadata_keys, node.excluded_llm_metadata_keys):
                keys.extend(k for k in hidden if k not in keys)
        return nodes


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, surrounding whitespace left out."""
    spans, start = [], 0
    for sentence in sentences(text):
        end = start + len(sentence)
        stripped = sentence.strip()
        if stripped:
            left = start + (len(sentence) - len(sentence.lstrip()))
            spans.append((left, left + len(stripped)))
        start = end
    return spans


class SentenceWindowRetriever:
    """Sentence-window retrieval over an index of ordinary chunks, with nothing re-embedded
    ahead of time.

    The base retriever finds candidate chunks; each candidate, read with its neighbours, is
    split into sentence nodes by ``SentenceWindowNodeParser`` (so each carries its ``window``);
    the candidates' sentences are embedded and ranked against the question, and the best
    ``similarity_top_k`` come back, offsets in the original document. Unlike an index built
    with the parser (every sentence embedded), only the candidates' sentences can be found:
    the price of working on any index at query time. A "sentence windows" trace stage counts
    the candidates and sentences.
    """

    def __init__(self, retriever: Any, index: Any, *, similarity_top_k: int = 4,
                 window_size: int = DEFAULT_WINDOW_SIZE) -> None:
        if not callable(getattr(retriever, "retrieve", None)):
            raise ConfigError(f"{retriever!r} is not a retriever: it needs retrieve(query)")
        if not callable(getattr(index, "get_node", None)) or not hasattr(index, "embedder"):
            raise ConfigError("index= must look nodes up (get_node) and embed (embedder)")
        if isinstance(similarity_top_k, bool) or not isinstance(similarity_top_k, int) or (
                similarity_top_k < 1):
            raise ConfigError(f"similarity_top_k ({similarity_top_k!r}) must be at least 1")
        self.retriever = retriever
        self.index = index
        self.similarity_top_k = similarity_top_k
        self.parser = SentenceWindowNodeParser(window_size=window_size)

    def retrieve(self, query: Any, *, trace: Any = None) -> list[ScoredNode]:
        query = str(getattr(query, "query_str", query))
        chunks = self.retriever.retrieve(query, trace=trace)
        stage = trace.stage("sentence windows", chunks=len(chunks)) if trace else nullcontext({})
        with stage as detail:
            found = self._sentences([c.node for c in chunks])
            ranked = self._ranked(query, found)
            detail.update(sentences=len(found), nodes_out=len(ranked))
        return ranked

    def _sentences(self, chunks: Sequence[Node]) -> list[Node]:
        seen: dict[str, Node] = {}
        for chunk in chunks:
            for node in self._chunk_sentences(chunk):
                seen.setdefault(node.node_id, node)
        return list(seen.values())

    def _chunk_sentences(self, chunk: Node) -> list[Node]:
        region, start = _with_neighbours(chunk, self.index)
        document = Document(region, doc_id=chunk.ref_doc_id or chunk.node_id,
                            metadata=dict(chunk.metadata),
                            excluded_embed_metadata_keys=list(chunk.excluded_embed_metadata_keys),
                            excluded_llm_metadata_keys=list(chunk.excluded_llm_metadata_keys))
        inner = (chunk.start_char - start, chunk.end_char - start) if start is not None else (
            0, len(region))
        kept = []
        for node in self.parser.get_nodes_from_documents([document]):
            if inner[0] <= node.start_char < inner[1]:
                # offsets into the document (ids follow them: the same sentence found from two
                # chunks is one node); links to neighbours of the region are not kept
                shift = start or 0
                salt = "query-time" if start is not None else f"query-time/{chunk.node_id}"
                node.node_id = node_id(document.doc_id, node.start_char + shift,
                                       node.end_char + shift, salt)
                node.start_char = None if start is None else node.start_char + shift
                node.end_char = None if start is None else node.end_char + shift
                node.prev_id = node.next_id = None
                kept.append(node)
        return kept

    def _ranked(self, query: str, nodes: list[Node]) -> list[ScoredNode]:
        if not nodes:
            return []
        embedder = self.index.embedder
        vectors = np.asarray(embedder.embed_batch(
            [query, *(n.content(MetadataMode.EMBED) for n in nodes)]), dtype=np.float32)
        scores = vectors[1:] @ vectors[0]
        order = np.argsort(-scores, kind="stable")[: self.similarity_top_k]
        return [ScoredNode(nodes[i], float(scores[i])) for i in order]


def _with_neighbours(chunk: Node, index: Any) -> tuple[str, int | None]:
    """The chunk's text with its previous and next chunks around it (overlaps read once), and
    where that text starts in the document (None when offsets are unknown)."""
    parts = [chunk]
    for neighbour_id, before in ((chunk.prev_id, True), (chunk.next_id, False)):
        if neighbour_id is None:
            continue
        try:
            neighbour = index.get_node(neighbour_id)
        except StoreError:
            continue
        if before:
            parts.insert(0, neighbour)
        else:
            parts.append(neighbour)
    if any(p.start_char is None or p.end_char is None for p in parts):
        return chunk.text, None
    return stitch(parts), parts[0].start_char


def stitch(nodes: Sequence[Node]) -> str:
    """Consecutive chunks of one document as one text: overlaps kept once, and a gap between
    two chunks (whitespace the splitter dropped) filled with spaces so offsets stay exact."""
    text = nodes[0].text
    end = nodes[0].end_char
    for node in nodes[1:]:
        if node.start_char >= end:
            text += " " * (node.start_char - end) + node.text
        else:
            text += node.text[end - node.start_char:]
        end = max(end, node.end_char)
    return text
