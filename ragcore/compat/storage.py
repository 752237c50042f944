"""LlamaIndex's storage names over ragcore's index folder: ``StorageContext`` and the views
behind ``index.docstore`` and ``index.ref_doc_info``.

LlamaIndex keeps an index in three stores (docstore, index store, vector store) gathered in a
``StorageContext``; ragcore keeps one versioned folder written atomically (``index.persist``)
and one vector store per index. So a ``StorageContext`` here is what LlamaIndex code uses it
for: a ``persist_dir`` to load from, a ``vector_store`` to build into, and ``persist()`` on
``index.storage_context``, and a ``docstore`` of nodes kept beside the index (a ``NodeStore``:
``storage_context.docstore.add_documents(nodes)``, where ``AutoMergingRetriever`` finds
parents). ``load_index_from_storage`` (in ``compat.index``) opens the folder
with ``VectorStoreIndex.load``; the docstore view reads the index's own node records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..retrieval.auto_merging import NodeStore
from ..stores.base import VectorStore
from ..types import Node
from .refusals import refuse

if TYPE_CHECKING:  # the core index: everything used here is its own, so no cycle with .index
    from ..index import VectorStoreIndex

STORAGE_HINTS = {
    "index_store": "ragcore keeps one index per folder; pass persist_dir=",
    "graph_store": "ragcore has no graph store",
    "image_store": "ragcore has no image store",
    "fs": "ragcore persists to the local file system only",
}


@dataclass(slots=True)
class StorageContext:
    """Where an index lives: a folder (``persist_dir``) and/or a ``vector_store``."""

    persist_dir: Path | None = None
    vector_store: VectorStore | None = None
    index: VectorStoreIndex | None = field(default=None, repr=False)
    docstore: Any = None  # nodes by id: where AutoMergingRetriever finds parents


    @classmethod
    def from_defaults(
        cls,
        persist_dir: str | Path | None = None,
        vector_store: VectorStore | None = None,
        docstore: Any = None,
        **unsupported: Any,
    ) -> StorageContext:
        """LlamaIndex's constructor: a folder to load from, a store to build into, and a
        docstore (a ``NodeStore``) for nodes kept beside the index, such as parents."""
        refuse("StorageContext.from_defaults", unsupported, STORAGE_HINTS)
        if persist_dir is not None and not Path(persist_dir).is_dir():
            raise ConfigError(
                f"persist_dir {str(persist_dir)!r} is not a folder: persist an index there "
                "first (index.storage_context.persist(persist_dir=...))"
            )
        folder = None if persist_dir is None else Path(persist_dir)
        return cls(folder, vector_store, None, docstore if docstore is not None else NodeStore())

    def persist(self, persist_dir: str | Path | None = None, **unsupported: Any) -> None:
        """Write the index to ``persist_dir`` (atomically: ``VectorStoreIndex.persist``)."""
        refuse("persist", unsupported, STORAGE_HINTS)
        if self.index is None:
            raise ConfigError("this StorageContext holds no index: use index.storage_context")
        target = persist_dir if persist_dir is not None else self.persist_dir
        if target is None:
            raise ConfigError("persist needs a folder: persist(persist_dir='./storage')")
        self.index.persist(target)
        self.persist_dir = Path(target)


@dataclass(slots=True)
class RefDocInfo:
    """A source document's node ids and metadata (LlamaIndex's ``RefDocInfo``)."""

    node_ids: list[str]
    metadata: dict[str, Any]


class DocstoreView:
    """LlamaIndex's ``index.docstore`` read from ragcore's node records."""

    def __init__(self, index: VectorStoreIndex) -> None:
        self._index = index

    @property
    def docs(self) -> dict[str, Node]:
        """Every node by id (LlamaIndex's docstore holds nodes under this name)."""
        return {node.node_id: node for node in self._index.all_nodes()}

    def get_node(self, node_id: str) -> Node:
        return self._index.get_node(node_id)

    def get_nodes(self, node_ids: list[str]) -> list[Node]:
        return self._index.get_nodes(node_ids)

    def document_exists(self, doc_id: str) -> bool:
        return self._index.doc_info(doc_id) is not None

    def get_ref_doc_info(self, ref_doc_id: str) -> RefDocInfo | None:
        info = self._index.doc_info(ref_doc_id)
        return None if info is None else RefDocInfo(list(info.node_ids), dict(info.metadata))

    def get_all_ref_doc_info(self) -> dict[str, RefDocInfo]:
        infos = ((doc_id, self.get_ref_doc_info(doc_id)) for doc_id in self._index.ref_doc_ids())
        return {doc_id: info for doc_id, info in infos if info is not None}

    def __len__(self) -> int:
        return len(self._index)
