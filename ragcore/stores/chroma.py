"""ChromaVectorStore: the VectorStore protocol over a Chroma collection (embedded or a server).

``ChromaVectorStore(path=FOLDER, collection=NAME)`` opens Chroma's embedded database in a
folder (``chromadb.PersistentClient``); ``ChromaVectorStore(url="chroma+http://HOST:PORT", ...)``
talks to a ``chroma run`` server (``chromadb.HttpClient``). Either way the collection is made
with ``embedding_function=None``: ragcore embeds, Chroma only stores and searches, so it never
downloads a model. Telemetry is turned off. Rows go in batches of the client's maximum.

Chroma's metadata holds scalars and lists of scalars; each row keeps its metadata as Chroma
values (what ``where`` filters read), plus three reserved keys: ``_rc_doc`` (the document id),
``_rc_keys`` (the keys present, so ``!=``/``nin`` never match a row without the key, as in
``ragcore.stores.filters``) and ``_rc_json`` (the whole metadata as JSON). ``chroma_where``
translates the filters Chroma can evaluate exactly; any other (a string range, a list
equality, a non-scalar value) is evaluated here on the JSON copy and the search restricted to
the matching ids, so results never depend on which path ran.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ConfigError, StoreError
from .base import METRICS, StoreSpec
from .filters import MetadataFilters, as_filters, matches
from .store_rows import check_rows, check_top_k, ordered_vectors

DOC_KEY, KEYS_KEY, JSON_KEY = "_rc_doc", "_rc_keys", "_rc_json"
_SPACES = {"cosine": "cosine", "dot": "ip", "euclidean": "l2"}
_SCALARS = (str, int, float, bool)
_OPS = {"==": "$eq", "!=": "$ne", ">": "$gt", "<": "$lt", ">=": "$gte", "<=": "$lte",
        "in": "$in", "nin": "$nin", "contains": "$contains"}


def _client(path: str | None, url: str | None) -> Any:
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError("the Chroma store needs chromadb: pip install 'ragcore[chroma]'") from exc
    settings = Settings(anonymized_telemetry=False)
    if url:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        try:
            return chromadb.HttpClient(host=parts.hostname, port=parts.port,
                                       ssl=parts.scheme.endswith("s"), settings=settings)
        except Exception as exc:
            raise StoreError(f"cannot reach the Chroma server at {url}: {exc}; start it with "
                             "`chroma run --path FOLDER --host HOST --port PORT`") from exc
    return chromadb.PersistentClient(path=str(path), settings=settings)


def _chroma_value(value: Any) -> Any:
    """The value as Chroma can hold it, or None (then only the JSON copy keeps it)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)) and value and all(type(v) is type(value[0])
                                                          for v in value):
        return list(value) if isinstance(value[0], _SCALARS) else None
    return None


def row_metadata(metadata: dict[str, Any], doc_id: str | None) -> dict[str, Any]:
    """One row's Chroma metadata: the Chroma-able values plus the reserved keys."""
    row = {k: v for k, v in ((k, _chroma_value(v)) for k, v in metadata.items()) if v is not None}
    row[JSON_KEY] = json.dumps(metadata, default=str)
    keys = [k for k, v in metadata.items() if v is not None]
    if keys:
        row[KEYS_KEY] = keys
    if doc_id is not None:
        row[DOC_KEY] = doc_id
    return row


def chroma_where(filters: MetadataFilters) -> dict[str, Any] | None:
    """Chroma's ``where`` for ``filters`` with ragcore's exact meaning, or None when some part
    cannot be said in Chroma's language (the caller then filters the JSON copies itself)."""
    parts = []
    for item in filters.filters:
        if isinstance(item, MetadataFilters):
            part = chroma_where(item)
        else:
            value, op = item.value, item.operator.value
            if op not in _OPS:
                return None  # text_match, any, all, is_empty: evaluated exactly by the caller
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if op in (">", "<", ">=", "<=") and not number:
                return None  # Chroma compares only numbers
            if op in ("in", "nin"):
                if not value or not all(isinstance(v, _SCALARS) for v in value):
                    return None
                value = list(value)
            elif not isinstance(value, _SCALARS):
                return None
            part = {item.key: {_OPS[op]: value}}
            if op in ("!=", "nin"):  # a row without the key never matches
                part = {"$and": [part, {KEYS_KEY: {"$contains": item.key}}]}
        if part is None:
            return None
        if part:
            parts.append(part)
    if not parts:
        return {}
    if len(parts) == 1:
        return parts[0]
    return {"$" + filters.condition.value: parts}


class ChromaVectorStore:
    """Rows in one Chroma collection: embedded at ``path`` or on the server at ``url``."""

    def __init__(self, *, collection: str, path: str | Path | None = None,
                 url: str | None = None, metric: str = "cosine") -> None:
        if metric not in METRICS:
            raise ConfigError(f"metric {metric!r} is not one of {', '.join(METRICS)}")
        if (path is None) == (url is None):
            raise ConfigError("ChromaVectorStore needs a folder (path=) or a server (url=)")
        self.path = None if path is None else str(Path(path).expanduser().resolve())
        self.url = url.replace("chroma+", "", 1) if url else None
        self.collection_name = collection
        self._metric = metric
        self._client = _client(self.path, self.url)
        try:
            self._col = self._client.get_or_create_collection(
                collection, embedding_function=None,
                configuration={"hnsw": {"space": _SPACES[metric], "ef_search": 200}},
            )
        except Exception as exc:
            raise StoreError(f"Chroma collection {collection!r} at {self.where}: {exc}") from exc
        space = ((self._col.configuration_json or {}).get("hnsw") or {}).get("space")
        if space and space != _SPACES[metric]:
            raise StoreError(f"Chroma collection {collection!r} at {self.where} scores with "
                             f"{space!r}, not {metric!r}: open it with its own metric")
        self._dim: int | None = None
        self._hidden: set[str] = set()  # orphan rows left out of searches (see consistency)
        self._batch = max(1, int(self._client.get_max_batch_size()))

    @property
    def where(self) -> str:
        return f"chroma+{self.url}" if self.url else f"chroma:{self.path}"

    @property
    def metric(self) -> str:
        return self._metric

    @property
    def dim(self) -> int | None:
        if self._dim is None:
            got = self._col.get(limit=1, include=["embeddings"])
            if got["ids"]:
                self._dim = len(got["embeddings"][0])
        return self._dim

    def __len__(self) -> int:
        return int(self._col.count())

    def __repr__(self) -> str:
        return f"ChromaVectorStore({self.collection_name!r} at {self.where}, {self._metric})"

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[dict] | None = None,
            *, doc_ids: Sequence[str | None] | None = None) -> None:
        ids, vectors, metadata, doc_ids = check_rows(ids, vectors, metadata, doc_ids, self.dim)
        if not ids:
            return
        rows = [row_metadata(m, d) for m, d in zip(metadata, doc_ids)]
        for start in range(0, len(ids), self._batch):
            end = start + self._batch
            self._col.upsert(ids=ids[start:end], embeddings=vectors[start:end],
                             metadatas=rows[start:end])
        self._dim = vectors.shape[1]

    def delete(self, ids: Sequence[str]) -> int:
        found = self._existing(list(ids))
        self._hidden.difference_update(found)
        for start in range(0, len(found), self._batch):
            self._col.delete(ids=found[start : start + self._batch])
        return len(found)

    def delete_ref_doc(self, doc_id: str) -> int:
        return self.delete(self._col.get(where={DOC_KEY: doc_id}, include=[])["ids"])

    def ids(self) -> list[str]:
        """Every node id in the collection (for checking it against an index's docstore)."""
        return list(self._col.get(include=[])["ids"])

    def hide(self, ids: Iterable[str]) -> None:
        """Leave these rows out of this object's searches (rows no index node names)."""
        self._hidden.update(ids)

    def _existing(self, ids: list[str]) -> list[str]:
        found: list[str] = []
        for start in range(0, len(ids), self._batch):
            found += self._col.get(ids=ids[start : start + self._batch], include=[])["ids"]
        return found

    def query(self, vector: np.ndarray, *, top_k: int, filters: MetadataFilters | None = None,
              node_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self.dim is not None and query.shape[0] != self.dim:
            raise StoreError(f"query vector has dimension {query.shape[0]}, the Chroma store "
                             f"{self.collection_name!r} holds dimension {self.dim}")
        filters = as_filters(filters)
        where = chroma_where(filters) if filters is not None else {}
        allowed = None if node_ids is None else list(dict.fromkeys(node_ids))
        if where is None:  # filters Chroma cannot say: evaluate them on the JSON copies
            passing = self._passing(filters, allowed)
            allowed, where = passing, {}
        if allowed is not None:
            allowed = self._existing(allowed)
            if not allowed:
                return []
        count = len(allowed) if allowed is not None else len(self)
        if count == 0:
            return []
        got = self._col.query(query_embeddings=[query], where=where or None, ids=allowed,
                              n_results=min(top_k + len(self._hidden), count),
                              include=["distances"])
        hits = [(i, self._score(d)) for i, d in zip(got["ids"][0], got["distances"][0])]
        return [h for h in hits if h[0] not in self._hidden][:top_k]

    def _passing(self, filters: MetadataFilters, among: list[str] | None) -> list[str]:
        got = self._col.get(ids=among, include=["metadatas"])
        return [i for i, m in zip(got["ids"], got["metadatas"])
                if matches(filters, json.loads((m or {}).get(JSON_KEY) or "{}"))]

    def _score(self, distance: float) -> float:
        if self._metric == "euclidean":
            return -float(np.sqrt(max(distance, 0.0)))
        return 1.0 - float(distance)

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        ids = list(ids)
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(ids), self._batch):
            got = self._col.get(ids=ids[start : start + self._batch], include=["embeddings"])
            found.update(zip(got["ids"], got["embeddings"]))
        return ordered_vectors(ids, found, self.dim, f"the Chroma store {self.collection_name!r}")

    def describe(self) -> StoreSpec:
        place = {"url": "chroma+" + self.url} if self.url else {"path": self.path}
        return StoreSpec("ChromaVectorStore",
                         {**place, "collection": self.collection_name, "metric": self._metric})

    def persist(self, folder: Path) -> None:
        """Nothing to write: Chroma keeps its rows durable itself."""

    def drop(self) -> None:
        """Delete the whole collection (when its index is deleted)."""
        self._client.delete_collection(self.collection_name)


def open_chroma_store(folder: Path, settings: dict[str, Any]) -> ChromaVectorStore:
    """The opener ``ragcore.stores.registry`` calls with a manifest's settings."""
    return ChromaVectorStore(path=settings.get("path"), url=settings.get("url"),
                             collection=str(settings["collection"]),
                             metric=str(settings.get("metric", "cosine")))
