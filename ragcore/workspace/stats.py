"""What the workspace shows about an index, read from its manifest and record, not the index.

``IndexFacts`` is what an index folder's manifest says (counts, model, dates, revision): one
small file. Files and tokens need the index, so ``describe_index`` counts them once per index
revision and keeps them in the record (``record.IndexRecord.counts_at``); listing indexes then
loads none of them. Tokens are kept per document too (``token_counts``): after a job only the
documents it added or replaced are read. ``IndexInfo`` is the summary the CLI and the Indexes page show.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .record import IndexRecord, read_record, write_record
from .ingest.token_counts import ledger_path, read_ledger, update_counts, write_ledger


@dataclass(slots=True, frozen=True)
class IndexInfo:
    """What the Indexes page and ``ragcore indexes`` show for one index."""

    name: str
    files: int
    documents: int
    nodes: int
    tokens: int | None
    bytes_on_disk: int
    embed_model: str
    chunk_size: int | None
    chunk_overlap: int | None
    created: str
    updated: str
    revision: int | None = None  # the index's revision on disk (None: nothing persisted yet)
    store: str = ""  # where the vectors are kept (a store location; "" = the index folder)


@dataclass(slots=True, frozen=True)
class IndexFacts:
    """What an index folder's manifest records about the index (all zero without a folder)."""

    documents: int = 0
    nodes: int = 0
    model: str = ""
    created: str = ""
    updated: str = ""
    revision: int | None = None  # None without a folder; 0 for one written before revisions
    on_disk: bool = False


def read_facts(folder: Path) -> IndexFacts:
    """The manifest's counts, model, dates and revision; reads one small file, loads nothing."""
    from ..index.disk.manifest import manifest_revision, read_manifest

    if not (folder / "manifest.json").is_file():  # nothing saved yet (handle.saved)
        return IndexFacts()
    manifest = read_manifest(folder)
    counts = _section(manifest, "counts")
    return IndexFacts(
        documents=_count(counts.get("documents")), nodes=_count(counts.get("nodes")),
        model=str(_section(manifest, "embed_model").get("name") or ""),
        created=str(manifest.get("created") or ""), updated=str(manifest.get("updated") or ""),
        revision=manifest_revision(manifest), on_disk=True,
    )


def _section(manifest: dict[str, Any], key: str) -> dict[str, Any]:
    value = manifest.get(key)
    return value if isinstance(value, dict) else {}


def _count(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def describe_index(
    name: str,
    record: IndexRecord,
    folder: Path,
    record_path: Path,
    *,
    try_lock: Callable[[], AbstractContextManager[bool]],
) -> IndexInfo:
    """The summary of one index; counts files and tokens only if the index changed since.

    ``try_lock`` is the workspace's write lock without waiting: the counts are saved in the
    record only while no change is under way, so a listing never waits for an ingestion and
    never writes the record beside it.
    """
    facts = read_facts(folder)
    counts = record.counts_at(facts.revision) if facts.on_disk else (0, 0)
    if counts is None:
        counts = _count_and_keep(folder, record_path, record.uid, try_lock)
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if facts.on_disk \
        else 0
    return IndexInfo(
        name=name, files=counts[0], documents=facts.documents, nodes=facts.nodes,
        tokens=counts[1], bytes_on_disk=size, embed_model=record.embed_model or facts.model,
        chunk_size=record.chunk_size, chunk_overlap=record.chunk_overlap,
        created=record.created or facts.created, updated=facts.updated or record.updated,
        revision=facts.revision, store=record.store,
    )


def _count_and_keep(folder: Path, record_path: Path, uid: str,
                    try_lock: Callable[[], AbstractContextManager[bool]]) -> tuple[int, int]:
    from ..index import VectorStoreIndex
    from .ingest.index_files import files_of

    index = VectorStoreIndex.load(folder)
    ledger = ledger_path(record_path)
    per_document = update_counts(index, read_ledger(ledger, uid))
    counts = len(files_of(index)), sum(tokens for _, tokens in per_document.values())
    with try_lock() as held:
        if held and record_path.exists():
            write_ledger(ledger, uid, per_document)
            record = read_record(record_path)
            record.files, record.tokens = counts
            record.counted_revision = index.revision  # what was counted, even if newer
            write_record(record_path, record)
    return counts

