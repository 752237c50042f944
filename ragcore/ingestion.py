"""Ingestion: documents -> nodes -> vectors, doing no work for input that has not changed.

``IngestionPipeline`` runs a splitter, optional node transforms and an embedder in order, with
two guards against repeated work: documents whose content hash matches the target index are
skipped (docstore semantics: skip unchanged, upsert changed), and an ``IngestionCache`` keyed by
content hash + transformation settings returns the nodes and vectors computed before.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from .embeddings.base import Embedder, Progress, embed_nodes
from .errors import ConfigError, EmbeddingError, StoreError
from .index.refresh import check_nodes
from .types import Document, MetadataMode, Node

if TYPE_CHECKING:
    from .index import VectorStoreIndex

log = logging.getLogger(__name__)



class IngestionCache:
    """In-memory results by key: the nodes (as records) and vectors one document produced."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[list[dict[str, Any]], np.ndarray | None]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: str) -> tuple[list[Node], np.ndarray | None] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        records, vectors = entry
        return [Node.from_dict(dict(r)) for r in records], vectors

    def put(self, key: str, nodes: Sequence[Node], vectors: np.ndarray | None) -> None:
        self._entries[key] = ([n.to_dict() for n in nodes], vectors)

    def clear(self) -> None:
        self._entries.clear()


@dataclass(slots=True)
class IngestionResult:
    """Nodes (and vectors, when embedded) of the documents that were (re)processed.

    Iterating it yields the nodes, so it reads as LlamaIndex's ``run() -> nodes``.
    """

    nodes: list[Node] = field(default_factory=list)
    vectors: np.ndarray | None = None
    processed: list[str] = field(default_factory=list)  # doc ids split/embedded or from cache
    unchanged: list[str] = field(default_factory=list)  # skipped: same hash in the index
    cached: list[str] = field(default_factory=list)  # served from the cache

    def __iter__(self) -> Iterator[Node]:
        return iter(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)


NodeTransform = Callable[[list[Node]], list[Node]]


class IngestionPipeline:
    """A splitter, then optional node transforms, then an optional embedder, with caching."""

    def __init__(
        self,
        *,
        transformations: Sequence[Any],
        index: VectorStoreIndex | None = None,
        cache: IngestionCache | None = None,
    ) -> None:
        steps = list(transformations)
        if not steps or not callable(getattr(steps[0], "get_nodes_from_documents", None)):
            raise ConfigError(
                "transformations must start with a splitter (an object with "
                "get_nodes_from_documents), e.g. [SentenceSplitter(), embedder]"
            )
        embedder = steps.pop() if isinstance(steps[-1], Embedder) and len(steps) > 1 else None
        for step in steps[1:]:
            if isinstance(step, Embedder) or not callable(step):
                raise ConfigError(
                    f"{step!r} cannot be a middle transformation: middle steps are callables "
                    "taking and returning a list of nodes; the embedder goes last"
                )
        if embedder is not None and index is not None:
            built_with = index.embed_model_name
            if embedder.model_name != built_with:
                raise ConfigError(
                    f"the pipeline embeds with {embedder.model_name!r} but the index holds "
                    f"{built_with!r} vectors: drop the embedder step to use the index's own"
                )
        self.splitter = steps[0]
        self.transforms: list[NodeTransform] = steps[1:]
        self.embedder: Embedder | None = embedder
        self.index = index
        self.cache = cache if cache is not None else IngestionCache()

    def settings_key(self) -> str:
        """A digest of every transformation's settings: part of each cache key."""
        parts = [_describe(self.splitter), *(_describe(t) for t in self.transforms)]
        embedder = self._embedder()
        parts.append({"embedder": embedder.model_name if embedder is not None else None})
        blob = json.dumps(parts, sort_keys=True, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def _embedder(self) -> Embedder | None:
        if self.embedder is not None:
            return self.embedder
        return self.index.embedder if self.index is not None else None

    def run(
        self, documents: Iterable[Document], *, progress: Progress | None = None
    ) -> IngestionResult:
        """Process the documents that are new or changed; upsert them into the index if any."""
        latest: dict[str, Document] = {}
        for doc in documents:
            if not isinstance(doc, Document):
                raise ConfigError(f"expected Document objects, got {type(doc).__name__}")
            latest[doc.doc_id] = doc  # a repeated id: the last one wins
        result = IngestionResult()
        todo = []
        for doc_id, doc in latest.items():
            info = self.index.doc_info(doc_id) if self.index is not None else None
            if info is not None and info.hash == doc.hash:
                result.unchanged.append(doc_id)
            else:
                todo.append(doc)
        per_doc = self._process(todo, self.settings_key(), result, progress)
        result.processed = [d.doc_id for d in todo]
        result.nodes = [n for d in todo for n in per_doc[d.doc_id][0]]
        if self._embedder() is not None:
            parts = [per_doc[d.doc_id][1] for d in todo if per_doc[d.doc_id][0]]
            result.vectors = np.concatenate(parts) if parts else np.zeros((0, 0), np.float32)
        if self.index is not None and todo:
            assert result.vectors is not None  # the index always has an embedder
            self.index.upsert_documents(todo, result.nodes, result.vectors)
        return result

    def _process(
        self,
        documents: list[Document],
        settings: str,
        result: IngestionResult,
        progress: Progress | None,
    ) -> dict[str, tuple[list[Node], np.ndarray | None]]:
        """Nodes and vectors per document id: from the cache, else split and embed together."""
        done: dict[str, tuple[list[Node], np.ndarray | None]] = {}
        missing = []
        for doc in documents:
            hit = self.cache.get(_cache_key(doc, settings))
            if hit is None:
                missing.append(doc)
            else:
                done[doc.doc_id] = hit
                result.cached.append(doc.doc_id)
        nodes = list(self.splitter.get_nodes_from_documents(missing)) if missing else []
        for transform in self.transforms:
            nodes = list(transform(nodes))
        check_nodes(nodes, doc_ids={d.doc_id for d in missing})
        embedder = self._embedder()
        vectors = embed_nodes(embedder, nodes, progress=progress) if embedder and nodes else None
        rows: dict[str, list[int]] = {d.doc_id: [] for d in missing}
        for i, node in enumerate(nodes):
            rows[node.ref_doc_id].append(i)  # type: ignore[index]  # checked above
        for doc in missing:
            doc_nodes = [nodes[i] for i in rows[doc.doc_id]]
            doc_vectors = vectors[rows[doc.doc_id]] if vectors is not None else None
            self.cache.put(_cache_key(doc, settings), doc_nodes, doc_vectors)
            done[doc.doc_id] = (doc_nodes, doc_vectors)
        return done


def _cache_key(document: Document, settings: str) -> str:
    blob = f"{document.doc_id}\0{document.hash}\0{settings}"
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _describe(step: Any) -> dict[str, Any]:
    settings = step.settings() if callable(getattr(step, "settings", None)) else None
    name = getattr(step, "__qualname__", None) or type(step).__qualname__
    return {"step": name, "settings": settings if settings is not None else repr(step)}
