"""SimpleVectorStore: exact search over an in-memory (or memory-mapped) numpy matrix.

Rows live in ``MatrixRows`` (``rows``): the rows last saved or loaded, memory-mapped when
large, and an in-memory tail that grows by half again when full, so adding is amortized O(rows
added) and saving an index holds only the rows added since its last save in memory. A query is
one matrix-vector product plus ``np.argpartition`` and a sort of the k best: no Python loop over
rows. Metrics:

- ``cosine``: rows and queries are L2-normalized on the way in, so the score is a dot product.
- ``dot``: the raw inner product.
- ``euclidean``: the score is the *negative* Euclidean distance (as in LlamaIndex), so higher is
  still better; distances use ||a||^2 - 2ab + ||b||^2 with the row norms cached.

Deleting marks rows dead in the saved segments (and drops them from the tail): ids, metadata and
document ids are compacted, the saved vectors are not copied. Metadata filters
are evaluated column-wise and their row masks are cached until the store changes. A store does
no locking: VectorStoreIndex serializes writes and searches. Each row also keeps its node's
document id, for ``delete_ref_doc``. The store knows no ranking but similarity: MMR runs over
its results in ``ragcore.search.mmr``. On disk, in the index folder: ``store.json``, segments of
``vectors.npy`` (memory-mapped on load when large), ``vector_ids.json``,
``vector_metadata.json`` and ``vector_doc_ids.json`` (the last two parsed on first use, not at
load), and a deletion bitmap; a save links the segments it keeps and writes only the rows added
since (``save``; the size-tiered merges of ``segments.plan_merges`` are the merger's,
``merge``); a big segment also gets its approximate index (``ann.faiss``, built by
whoever writes it: ``ann``). The format is written and read in ``persist``, and
``ragcore.stores.registry`` reopens it from the index manifest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...embeddings.base import normalize
from ...errors import ConfigError, IndexFormatError, StoreError
from .ann import AnnSearch, AnnSettings
from ..base import METRICS, StoreSpec
from ..filters import MaskCache, MetadataFilters, as_filters, id_mask
from .rows import MatrixRows, top_k_indices
from ..query_threads import query_threads
from .segments import Segment
from .persist import Column, ids_digest, ids_mismatch, parse_column, read_store
from .save import save_store, store_merges_due

_MASK_CACHE_SIZE = 8


class SimpleVectorStore:
    """Exact nearest-neighbour search with numpy; see the module docstring for the metrics."""

    def __init__(self, *, metric: str = "cosine", ann: AnnSettings | None = AnnSettings()) -> None:
        if metric not in METRICS:
            choices = ", ".join(METRICS)
            raise ConfigError(f"metric {metric!r} is not supported: use one of {choices}")
        self._metric = metric
        self._matrix = MatrixRows()
        self._size = 0
        self._ids: list[str] = []
        self._rows: dict[str, int] | None = {}  # id -> row; built on first use after load
        self._segments: list[Segment] = []  # saved, one per part of _matrix
        self._metadata = Column([])  # per row; after load, parsed on first use
        self._doc_ids = Column([])  # per row: the node's document id (None: loose or unknown)
        self._sq_norms: np.ndarray | None = None  # euclidean only, computed on first query
        self._masks = MaskCache(_MASK_CACHE_SIZE)
        self._ann = None if ann is None else AnnSearch(ann, metric)  # big segments: ``ann``

    def __len__(self) -> int:
        return self._size

    def __repr__(self) -> str:
        return f"SimpleVectorStore(metric={self.metric!r}, rows={self._size}, dim={self.dim})"

    @property
    def dim(self) -> int | None:
        """Vector dimension, or None before the first add."""
        return self._matrix.dim

    @property
    def metric(self) -> str:
        return self._metric

    def describe(self) -> StoreSpec:
        ann = None if self._ann is None else self._ann.settings.to_json()
        return StoreSpec("SimpleVectorStore", {"metric": self._metric, "ann": ann})

    def approximate_search(self, *, measure: bool = False) -> list[dict[str, Any]]:
        """How each saved segment big enough for an approximate index is searched: its
        measured recall@10 against exact search and nprobe, or exact and why (``ann``);
        ``measure``: measure indexes saved unmeasured now. [] when every row is searched
        exactly because no segment is that big (or ``ann=None``)."""
        if self._ann is None:
            return []
        names = [segment.name for segment in self._segments]
        return self._ann.report(self._matrix, names, measure=measure)

    def ids(self) -> list[str]:
        """Row ids in row order."""
        return list(self._ids)

    def vectors(self) -> np.ndarray:
        """The stored vectors, rows aligned with ``ids()`` (a read-only view)."""
        view = self._matrix.array()
        view.flags.writeable = False
        return view

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        """The vectors of ``ids`` in that order (a copy; normalized under cosine)."""
        rows = self._row_map()
        missing = [i for i in ids if i not in rows]
        if missing:
            raise StoreError(
                f"no vector with id {missing[0]!r} in the store ({len(missing)} of {len(ids)} "
                "ids unknown)"
            )
        return self._matrix.take(np.array([rows[i] for i in ids], dtype=np.intp))

    def metadata(self, node_id: str) -> dict[str, Any]:
        """The metadata stored with one row."""
        row = self._row_map().get(node_id)
        if row is None:
            raise StoreError(f"no vector with id {node_id!r} in the store")
        return self._metadata.parsed()[row]

    def doc_ids(self) -> list[str | None]:
        """Each row's document id, aligned with ``ids()`` (None: loose, or unknown)."""
        return list(self._doc_ids.parsed())

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._row_map()

    def id_digests(self) -> dict[str, str]:
        """The digests of each saved segment's row ids and document ids, by file (what the
        index manifest records to bind them to the node records)."""
        digests = {}
        for segment in self._segments:
            if "vector_doc_ids.json" not in segment.digests:  # read before digests existed
                raw = segment.path("vector_doc_ids.json").read_bytes()
                values = parse_column(str(segment.path("vector_doc_ids.json")), raw, segment.rows)
                segment.digests["vector_doc_ids.json"] = ids_digest(values)
            for file, digest in segment.digests.items():
                digests[segment.key(file)] = digest
        return digests

    def expect_id_digests(self, digests: dict[str, Any], folder: Path) -> None:
        """Check the row ids loaded from ``folder`` against ``digests`` (``id_digests`` as
        recorded) now, and the document ids when they are first parsed."""
        for i, segment in enumerate(self._segments):
            expected = digests.get(segment.key("vector_ids.json"))
            if expected is not None and segment.digests["vector_ids.json"] != expected:
                raise ids_mismatch(segment.path("vector_ids.json"))
            expected = digests.get(segment.key("vector_doc_ids.json"))
            if expected is not None and self._doc_ids.values is None:
                self._doc_ids.pieces[i].digest = expected
                segment.digests["vector_doc_ids.json"] = expected

    def _row_map(self) -> dict[str, int]:
        if self._rows is None:
            self._rows = dict(zip(self._ids, range(len(self._ids))))
        return self._rows

    # -- writing -----------------------------------------------------------------------------

    def add(
        self,
        ids: Sequence[str],
        vectors: np.ndarray,
        metadata: Sequence[dict[str, Any]] | None = None,
        *,
        doc_ids: Sequence[str | None] | None = None,
    ) -> None:
        """Add rows; an id already present has its vector, metadata and document replaced."""
        if len(ids) == 0:
            return
        matrix = self._check_vectors(ids, vectors, metadata, doc_ids)
        metas = [dict(m) if m else {} for m in metadata] if metadata is not None else None
        rows = self._row_map()
        existing = [i for i, node_id in enumerate(ids) if node_id in rows]
        if existing:
            self.delete([ids[i] for i in existing])
        self._matrix.append(matrix)
        rows.update(zip(ids, range(self._size, self._size + len(ids))))
        self._ids.extend(ids)
        self._metadata.extend(metas if metas is not None else [{} for _ in ids])
        self._doc_ids.extend([None] * len(ids) if doc_ids is None else doc_ids)
        self._size += len(ids)
        self._changed()

    def delete(self, ids: Sequence[str]) -> int:
        """Remove rows by id (unknown ids are ignored); returns how many were removed."""
        rows = self._row_map()
        doomed_ids = {i for i in ids if i in rows}
        if not doomed_ids:
            return 0
        doomed = sorted(rows[i] for i in doomed_ids)
        keep = np.ones(self._size, dtype=bool)
        keep[doomed] = False
        self._matrix.keep(keep)
        self._metadata.keep(keep)
        self._doc_ids.keep(keep)
        first = doomed[0]
        self._ids = [v for v, k in zip(self._ids, keep.tolist()) if k]
        for node_id in doomed_ids:
            del rows[node_id]
        self._size -= len(doomed)
        rows.update(zip(self._ids[first:], range(first, self._size)))
        self._changed()
        return len(doomed)

    def delete_ref_doc(self, doc_id: str) -> int:
        """Remove the rows added with ``doc_id`` (rows loaded from a version 1 folder have no
        document id, so none of them match); returns how many were removed."""
        doc_ids = self._doc_ids.parsed()
        return self.delete([i for i, d in zip(self._ids, doc_ids) if d == doc_id])

    def _check_vectors(
        self,
        ids: Sequence[str],
        vectors: np.ndarray,
        metadata: Sequence[Any] | None,
        doc_ids: Sequence[Any] | None,
    ) -> np.ndarray:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise StoreError(
                f"vectors must be a 2-D array with one row per id: got shape {matrix.shape} "
                f"for {len(ids)} ids"
            )
        if metadata is not None and len(metadata) != len(ids):
            raise StoreError(f"got {len(metadata)} metadata entries for {len(ids)} ids")
        if doc_ids is not None and len(doc_ids) != len(ids):
            raise StoreError(f"got {len(doc_ids)} document ids for {len(ids)} ids")
        if len(set(ids)) != len(ids):
            raise StoreError("ids passed to add() must be unique within one call")
        if self.dim is not None and matrix.shape[1] != self.dim:
            raise StoreError(
                f"vectors have dimension {matrix.shape[1]} but the store holds dimension "
                f"{self.dim}: use the embedding model the store was built with"
            )
        if not np.isfinite(matrix).all():
            raise StoreError("vectors contain NaN or infinite values")
        if self._metric == "cosine":
            matrix = normalize(matrix)
        return matrix

    def _changed(self) -> None:
        self._sq_norms = None
        self._masks.clear()

    # -- searching ---------------------------------------------------------------------------

    def query(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        filters: MetadataFilters | dict[str, Any] | None = None,
        node_ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) pairs, best first, among rows passing ``filters`` and ``node_ids``."""
        found = self.query_rows(vector, top_k=top_k, filters=filters, node_ids=node_ids)
        return [(node_id, score) for _, node_id, score in found]

    def query_rows(
        self, vector: np.ndarray, *, top_k: int,
        filters: MetadataFilters | dict[str, Any] | None = None,
        node_ids: Sequence[str] | None = None,
    ) -> list[tuple[int, str, float]]:
        """As ``query``, each hit with its row: its position in ``ids()``."""
        if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
            raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")
        if self._size == 0:
            return []
        query = self._prepare_query(vector)
        rows = self._candidate_rows(as_filters(filters), node_ids)
        if rows is not None and rows.size == 0:
            return []
        with query_threads():  # one BLAS thread: see query_threads
            if self._ann is not None:  # big saved segments: approximate candidates, scored below
                rows = self._ann.candidates(self._matrix, query, top_k=top_k, rows=rows)
            if rows is None:
                scores = self._scores(None, query, None)
            elif rows.size * 4 >= self._size:
                # Scoring every row and gathering beats copying a large subset of the matrix.
                scores = self._scores(None, query, None)[rows]
            else:
                scores = self._scores(self._matrix.take(rows), query, rows)
        if not np.isfinite(scores).all():  # add() refuses them: only damage on disk gets here
            raise IndexFormatError(
                "the stored vectors hold NaN or infinite values (vectors.npy is damaged): run "
                "`ragcore verify`, then rebuild the index from its documents"
            )
        picked = top_k_indices(scores, top_k)
        found = picked if rows is None else rows[picked]
        return [(r, self._ids[r], float(s)) for r, s in zip(found.tolist(),
                                                            scores[picked].tolist())]

    def _prepare_query(self, vector: np.ndarray) -> np.ndarray:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.dim:
            raise StoreError(
                f"query vector has dimension {query.shape[0]} but the store holds dimension "
                f"{self.dim}: embed the query with the model the index was built with"
            )
        if not np.isfinite(query).all():
            raise StoreError("query vector contains NaN or infinite values")
        if self._metric == "cosine":
            norm = float(np.linalg.norm(query))
            query = query / norm if norm > 0 else query
        return query

    def _scores(
        self, matrix: np.ndarray | None, query: np.ndarray, rows: np.ndarray | None
    ) -> np.ndarray:
        """Scores of ``matrix`` (the rows at ``rows``), or of every row when it is None."""
        dots = self._matrix.dot(query) if matrix is None else matrix @ query
        if self._metric != "euclidean":
            return dots
        sq_norms = self._row_sq_norms()
        sq = (sq_norms if rows is None else sq_norms[rows]) - 2.0 * dots + float(query @ query)
        return -np.sqrt(np.maximum(sq, 0.0, out=sq), out=sq)

    def _row_sq_norms(self) -> np.ndarray:
        if self._sq_norms is None:
            self._sq_norms = self._matrix.square_norms()
        return self._sq_norms

    def _candidate_rows(
        self, filters: MetadataFilters | None, node_ids: Sequence[str] | None
    ) -> np.ndarray | None:
        """Row numbers allowed by the filters and id restriction (None: every row)."""
        if filters is None and node_ids is None:
            return None
        if filters is None:
            allowed = np.ones(self._size, dtype=bool)
        else:
            allowed = self._masks.mask(filters, lambda: self._metadata.parsed())
        if node_ids is not None:
            allowed = allowed & id_mask(self._row_map(), node_ids, self._size)
        return np.flatnonzero(allowed)

    # -- disk (the file format is in persist) -----------------------------------------

    def persist(self, folder: Path) -> None:
        """Save into the index folder ``folder`` (``save``): link the saved segments
        kept, write the rows added since as a new segment, then the header and the deletion
        bitmap (the size-tiered merges are the merger's: ``merge``)."""
        save_store(self, Path(folder))

    def merges_due(self) -> bool:
        """Whether the saved segments are due a size-tiered merge (``merge``)."""
        return store_merges_due(self)

    @classmethod
    def load(cls, folder: Path, *, ann: AnnSettings | None = AnnSettings()) -> SimpleVectorStore:
        """Read a folder written by ``persist``: vectors memory-mapped when large, no parsing
        of metadata or document ids until a filter or a delete needs them."""
        files = read_store(Path(folder), metrics=METRICS)
        store = cls(metric=files.metric, ann=ann)
        store._matrix.adopt(files.parts, files.live)
        store._segments = files.segments
        store._size = files.count
        store._ids = files.ids
        store._rows = None
        store._metadata, store._doc_ids = files.metadata, files.doc_ids
        for part, segment in zip(files.parts if store._ann else [], files.segments):
            store._ann.adopt(part, segment.folder)  # type: ignore[union-attr]
        return store
