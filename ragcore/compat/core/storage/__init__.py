"""``llama_index.core.storage``: ``StorageContext`` and the docstore."""

from ...storage import StorageContext

__all__ = ["StorageContext"]
