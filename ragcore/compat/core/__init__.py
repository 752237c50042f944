"""``llama_index.core``: the names LlamaIndex code imports from its core package.

Most are ragcore's own classes; ``VectorStoreIndex``, ``SimpleDirectoryReader``,
``StorageContext`` and ``Settings`` are the compat adapters. Imported on first use.
"""

from __future__ import annotations

from ...lazy_exports import lazy_exports

_EXPORTS = {
    "VectorStoreIndex": "ragcore.compat.index",
    "SimpleDirectoryReader": "ragcore.compat.reader",
    "StorageContext": "ragcore.compat.storage",
    "SummaryIndex": "ragcore.compat.summary_index",
    "load_index_from_storage": "ragcore.compat.index",
    "Settings": "ragcore.compat.settings",
    "Document": "ragcore.compat.documents",
    "QueryBundle": "ragcore.compat.core.schema",
    "PromptTemplate": "ragcore.compat.core.prompts",
    "get_response_synthesizer": "ragcore.compat.core.response_synthesizers",
    "ChatPromptTemplate": "ragcore.compat.core.prompts",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
