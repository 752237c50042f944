"""Files into an open index: per-file read/split/embed with reports, and whole-file lookups.

Everything here works on an ``IndexHandle`` (``handle.py``): the loaded index, its record and
its upload folder. Nothing here opens or locks an index or knows the workspace: ``Workspace``
opens the handle under its write lock and calls these; ``ingest_files`` saves the index through
the handle when its revision moved, so an unchanged index is never rewritten.

A "file" is what a user sees; an index holds documents (one per PDF page or JSON Lines record),
whose ids are the file's id base plus a suffix such as ``#page=3``. The id base is the resolved
path, or ``upload:<name>`` for a file uploaded into the index's own upload folder, so renaming an
index or moving the workspace does not turn its uploads into new documents.

Each file is read and refreshed on its own: a failure is reported and the others go on.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import RagcoreError, ReaderError, WorkspaceError
from .handle import UPLOAD_PREFIX, IndexHandle
from .report import FileOutcome, IngestCallback, IngestProgress, IngestReport

if TYPE_CHECKING:
    from ..index import VectorStoreIndex
    from ..types import Document

logger = logging.getLogger(__name__)

_SUFFIX = re.compile(r"#(page|line)=\d+$")
_READ_SHARE = 0.1  # share of a file's progress bar spent reading, the rest embedding


def file_key(doc_id: str) -> str:
    """The file part of a document id ('/a/b.pdf#page=3' -> '/a/b.pdf')."""
    return _SUFFIX.sub("", doc_id)


def collect_files(paths: list[str | Path]) -> list[Path]:
    """Files to ingest: each file as given, each folder scanned recursively (supported types)."""
    from ..readers import SimpleDirectoryReader

    files: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            files += SimpleDirectoryReader(input_dir=path, recursive=True).iter_files()
        else:
            files.append(path)  # a missing file is reported as failed, with the others going on
    if not files:
        raise WorkspaceError(
            f"nothing to ingest in {', '.join(map(str, paths)) or 'no paths'}: give files or "
            "folders holding supported documents (.pdf .txt .md .docx .html .csv .json ...)"
        )
    return list(dict.fromkeys(p.resolve() if p.exists() else p for p in files))


def ingest_files(
    handle: IndexHandle,
    files: list[Path],
    *,
    progress: IngestCallback | None = None,
    force: bool = False,
) -> IngestReport:
    """Refresh each file's documents in the index and save it if that changed it.

    ``force`` re-embeds files whose content did not change (re-indexing).
    """
    started = time.perf_counter()
    report = IngestReport(index=handle.name)
    before = handle.index.revision
    for number, path in enumerate(files, 1):
        emit = _emitter(progress, str(path), number, len(files))
        outcome, removed = ingest_file(handle, path, emit=emit, force=force)
        report.files.append(outcome)
        report.removed_documents += removed
        emit(outcome.status if outcome.status != "indexed" else "done", 1.0)
    if handle.index.revision != before or not handle.folder.is_dir():
        if progress is not None:
            progress(IngestProgress("", len(files), len(files), "saving", 1.0))
        handle.save()
    report.seconds = time.perf_counter() - started
    return report


def _emitter(progress: IngestCallback | None, path: str, number: int,
             count: int) -> Callable[[str, float], None]:
    def emit(stage: str, fraction: float) -> None:
        if progress is not None:
            progress(IngestProgress(path, number, count, stage, fraction))

    return emit


def ingest_file(
    handle: IndexHandle,
    path: Path,
    *,
    emit: Callable[[str, float], None],
    force: bool = False,
) -> tuple[FileOutcome, int]:
    """Read one file and refresh its documents; returns its outcome and stale documents removed."""
    started = time.perf_counter()
    index = handle.index
    emit("reading", 0.0)
    base = handle.id_base(path) if path.exists() else str(path)
    try:
        documents = _read(path, base)
    except ReaderError as exc:
        return FileOutcome(str(path), "failed", reason=exc.problem, hint=exc.hint,
                           seconds=time.perf_counter() - started), 0
    new_ids = {d.doc_id for d in documents}
    stale = [i for i in index.ref_doc_ids() if file_key(i) == base and i not in new_ids]
    if force:
        stale += [i for i in new_ids if index.doc_info(i) is not None]
    for doc_id in stale:
        index.delete_ref_doc(doc_id)
    removed = len([i for i in stale if i not in new_ids])
    emit("embedding", _READ_SHARE)
    try:
        refreshed = index.refresh_ref_docs(
            documents, progress=lambda done, total: emit(
                "embedding", _READ_SHARE + (1 - _READ_SHARE) * done / max(total, 1)))
    except RagcoreError as exc:
        return FileOutcome(str(path), "failed", reason=str(exc),
                           hint="check the file, or the chunk size and embedding settings",
                           seconds=time.perf_counter() - started), removed
    seconds = time.perf_counter() - started
    if not refreshed.changed and not removed:
        return FileOutcome(str(path), "unchanged", documents=len(documents), seconds=seconds), 0
    chunks = sum(len(index.doc_info(i).node_ids) for i in refreshed.changed)
    return FileOutcome(str(path), "indexed", chunks=chunks, documents=len(documents),
                       seconds=seconds), removed


def _read(path: Path, base: str) -> list[Document]:
    from ..readers import load_file

    if not path.exists():
        raise ReaderError(path, "does not exist", "check the path")
    if not path.is_file():
        raise ReaderError(path, "is not a regular file", "give a file or a folder")
    try:
        return load_file(path, doc_id_base=base)
    except ReaderError:
        raise
    except Exception as exc:  # a reader bug on one odd file must not stop the other files
        logger.exception("unexpected error reading %s", path)
        raise ReaderError(path, f"could not be read ({type(exc).__name__}: {exc})",
                          "convert it to another format and try again") from exc


# -- whole files: listing, deleting, re-indexing ----------------------------------------------


def files_of(index: VectorStoreIndex) -> list[dict[str, Any]]:
    """One row per source file: name, path, id base, documents, chunks, characters, doc ids."""
    rows: dict[str, dict[str, Any]] = {}
    for doc_id in index.ref_doc_ids():
        info = index.doc_info(doc_id)
        key = file_key(doc_id)
        row = rows.setdefault(key, {
            "file": info.metadata.get("file_name") or Path(key).name, "id_base": key,
            "path": info.metadata.get("file_path", ""), "documents": 0, "chunks": 0,
            "characters": 0, "indexed_at": info.indexed_at, "doc_ids": []})
        row["documents"] += 1
        row["chunks"] += len(info.node_ids)
        row["characters"] += info.characters
        row["indexed_at"] = max(row["indexed_at"], info.indexed_at)
        row["doc_ids"].append(doc_id)
    return list(rows.values())


def matching_documents(handle: IndexHandle, target: str) -> list[str]:
    """Document ids named by ``target``: an id, a file's id base or path, or a file name."""
    index = handle.index
    ids = index.ref_doc_ids()
    if target in ids:
        return [target]
    candidate = Path(target).expanduser()
    keys = {target, UPLOAD_PREFIX + target}
    if candidate.exists():
        keys.add(handle.id_base(candidate))
    found = [i for i in ids if file_key(i) in keys]
    if found:
        return found
    return [i for i in ids if index.doc_info(i).metadata.get("file_name") == target]


def require_documents(handle: IndexHandle, target: str) -> list[str]:
    """``matching_documents``, or a WorkspaceError listing the files there are."""
    found = matching_documents(handle, target)
    if not found:
        files = sorted({r["file"] for r in files_of(handle.index)})
        shown = ", ".join(files[:8]) + (" ..." if len(files) > 8 else "") or "none"
        raise WorkspaceError(
            f"no document {target!r} in index {handle.name!r}: give a document id, a file path "
            f"or a file name (files: {shown})"
        )
    return found


def remove_documents(handle: IndexHandle, target: str) -> tuple[list[str], list[Path]]:
    """Remove the matching documents from the loaded index.

    Returns their ids and the uploaded originals no remaining document comes from (the caller
    deletes those once the index is saved).
    """
    doomed = require_documents(handle, target)
    for doc_id in doomed:
        handle.index.delete_ref_doc(doc_id)
    remaining = {file_key(i) for i in handle.index.ref_doc_ids()}
    orphans = [handle.upload_of(key) for key in {file_key(i) for i in doomed} - remaining]
    return doomed, [path for path in orphans if path is not None]


def source_files(handle: IndexHandle, target: str) -> list[Path]:
    """The files the matching documents were read from, where they are now (for re-indexing)."""
    doc_ids = require_documents(handle, target)
    files = list(dict.fromkeys(_source_file(handle, i) for i in doc_ids))
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise WorkspaceError(
            f"cannot re-index: the original file(s) {', '.join(missing)} are gone; ingest them "
            "from their new location, or delete the document"
        )
    return files


def _source_file(handle: IndexHandle, doc_id: str) -> Path:
    # An upload is wherever the index's upload folder is now (it moves on rename).
    key = file_key(doc_id)
    upload = handle.upload_of(key)
    if upload is not None:
        return upload
    return Path(handle.index.doc_info(doc_id).metadata.get("file_path") or key)
