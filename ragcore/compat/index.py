"""``VectorStoreIndex`` with LlamaIndex's signatures over ragcore's index.

It *is* ragcore's ``VectorStoreIndex`` (a subclass that only translates arguments): the
constructor takes ``nodes`` (by position; a list of Documents is indexed as documents),
``embed_model``, ``storage_context``, ``transformations`` and ``show_progress``, each read
from ``Settings`` when left out; ``as_query_engine`` and ``as_chat_engine`` are translated in
``compat.engines``; ``storage_context``, ``docstore``, ``ref_doc_info`` and ``update_ref_doc``
are the views of ``compat.storage``. ragcore's own keywords (``embedder=``, ``store=``,
``splitter=``, ``progress=``) still work, so every inherited method builds this class too.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..embeddings.base import Embedder
from ..errors import ConfigError
from ..index import VectorStoreIndex as _Index
from ..types import Document
from . import engines
from .progress import progress_bar
from .refusals import refuse
from .settings import Settings
from .storage import STORAGE_HINTS
from .storage import DocstoreView, RefDocInfo, StorageContext

_HINTS = {
    "callback_manager": "pass trace=Trace() to query/chat calls to see what happened",
    "use_async": "ragcore embeds in batches on one thread; async drivers are aquery/achat",
    "store_nodes_override": "ragcore always keeps node records (they are what answers quote)",
    "insert_batch_size": "ragcore embeds in the embedder's own batches (batch_size=)",
    "service_context": "ServiceContext is gone in LlamaIndex too: use Settings or arguments",
    "index_struct": "ragcore indexes have no separate index struct",
}


class VectorStoreIndex(_Index):
    """ragcore's index, built and used with LlamaIndex's keywords."""

    def __init__(
        self,
        nodes: Sequence[Any] | None = None,
        *,
        embed_model: Embedder | None = None,
        storage_context: StorageContext | None = None,
        transformations: Sequence[Any] | None = None,
        show_progress: bool = False,
        embedder: Embedder | None = None,
        store: Any = None,
        splitter: Any = None,
        progress: Any = None,
        **unsupported: Any,
    ) -> None:
        refuse("VectorStoreIndex", unsupported, _HINTS)
        embedder, splitter = _collaborators(embed_model or embedder, splitter, transformations)
        if store is None and storage_context is not None:
            store = storage_context.vector_store
        super().__init__(embedder=embedder, store=store, splitter=splitter)
        items = list(nodes or ())
        progress = progress or progress_bar(show_progress, "Generating embeddings")
        if items and all(isinstance(item, Document) for item in items):
            # LlamaIndex would index each Document as one node; ragcore splits documents.
            self.refresh_ref_docs(items, progress=progress)
        elif items:
            self.insert_nodes(items, progress=progress)

    @classmethod
    def from_documents(  # type: ignore[override]
        cls,
        documents: Iterable[Document],
        storage_context: StorageContext | None = None,
        *,
        embed_model: Embedder | None = None,
        transformations: Sequence[Any] | None = None,
        show_progress: bool = False,
        **options: Any,
    ) -> VectorStoreIndex:
        """Split, embed and index ``documents`` (LlamaIndex's keywords, or ragcore's)."""
        refuse("VectorStoreIndex.from_documents", {
            k: v for k, v in options.items()
            if k not in ("embedder", "splitter", "store", "progress")
        }, _HINTS)
        embedder, splitter = _collaborators(
            embed_model or options.get("embedder"), options.get("splitter"), transformations
        )
        store = options.get("store")
        if store is None and storage_context is not None:
            store = storage_context.vector_store
        progress = options.get("progress") or progress_bar(show_progress, "Generating embeddings")
        return super().from_documents(
            documents, embedder=embedder, splitter=splitter, store=store, progress=progress
        )

    @classmethod
    def from_vector_store(  # type: ignore[override]
        cls, vector_store: Any, storage_context: StorageContext | None = None, **options: Any
    ) -> VectorStoreIndex:
        """An index over a store that holds the vectors of ``nodes=`` (see ragcore's)."""
        embed_model = options.pop("embed_model", None)
        return super().from_vector_store(vector_store, embedder=embed_model, **options)

    # -- engines -----------------------------------------------------------------------------

    def as_query_engine(self, llm: Any = None, **options: Any) -> Any:  # type: ignore[override]
        """A query engine; ``llm`` defaults to ``Settings.llm``, then to ``resolve_llm()``."""
        return engines.query_engine(self, llm, options)

    def as_chat_engine(  # type: ignore[override]
        self, chat_mode: Any = "best", llm: Any = None, **options: Any
    ) -> Any:
        """A chat engine that owns its memory (``ChatSession``) unless ``memory=`` is given."""
        return engines.chat_engine(self, chat_mode, llm, options)

    # -- LlamaIndex's storage views ----------------------------------------------------------

    @property
    def storage_context(self) -> StorageContext:
        """``index.storage_context.persist(persist_dir=...)`` writes this index."""
        return StorageContext(self.path, self.store, self, DocstoreView(self))

    @property
    def docstore(self) -> DocstoreView:
        return DocstoreView(self)

    @property
    def ref_doc_info(self) -> dict[str, RefDocInfo]:
        return self.docstore.get_all_ref_doc_info()

    @property
    def index_id(self) -> str:
        return str(self.path or id(self))

    def update_ref_doc(self, document: Document, **unsupported: Any) -> None:
        """Replace an indexed document with this version (ragcore's ``insert`` does that)."""
        refuse("update_ref_doc", unsupported, {})
        self.insert(document)

    def delete_ref_doc(  # type: ignore[override]
        self, ref_doc_id: str, delete_from_docstore: bool = True, **unsupported: Any
    ) -> bool:
        """Remove a document and its nodes (always from the docstore too, and from disk at the
        next persist)."""
        refuse("delete_ref_doc", unsupported, {})
        return super().delete_ref_doc(ref_doc_id)


def _collaborators(
    embedder: Embedder | None, splitter: Any, transformations: Sequence[Any] | None
) -> tuple[Embedder | None, Any]:
    """The embedder and splitter from the arguments, ``transformations`` and ``Settings``."""
    if transformations is not None:
        steps = list(transformations)
        if steps and isinstance(steps[-1], Embedder):
            embedder = embedder or steps.pop()
        if len(steps) != 1 or not callable(getattr(steps[0], "get_nodes_from_documents", None)):
            raise ConfigError(
                "transformations= here takes one splitter (and optionally an embedder last); "
                "for more steps run IngestionPipeline(transformations=[...], index=index)"
                ".run(documents) (ragcore.compat.core.ingestion)"
            )
        splitter = splitter or steps[0]
    return embedder or Settings.embed_model, splitter or Settings.splitter()


def load_index_from_storage(
    storage_context: StorageContext, index_id: str | None = None, **options: Any
) -> VectorStoreIndex:
    """The index persisted in ``storage_context.persist_dir`` (``embed_model=`` optional)."""
    if index_id is not None:
        raise ConfigError(
            f"index_id={index_id!r}: a ragcore folder holds exactly one index; give each index "
            "its own persist_dir"
        )
    embed_model = options.pop("embed_model", None)
    refuse("load_index_from_storage", options, STORAGE_HINTS)
    if storage_context.persist_dir is None:
        raise ConfigError("load_index_from_storage needs StorageContext.from_defaults("
                          "persist_dir=...) (the folder an index was persisted to)")
    return VectorStoreIndex.load(
        storage_context.persist_dir, embedder=embed_model or Settings.embed_model
    )
