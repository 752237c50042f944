"""Files into a workspace index: per-file read/split/embed with reports, and per-file deletion.

A "file" is what a user sees; an index holds documents (one per PDF page or JSON Lines record),
whose ids are the file's id base plus a suffix such as ``#page=3``. The id base is the resolved
path, or ``upload:<name>`` for a file uploaded into the index's own upload folder, so renaming an
index or moving the workspace does not turn its uploads into new documents.

Each file is read and refreshed on its own (a failure is reported and the others go on); the
index is persisted once, atomically, at the end.
"""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..errors import RagcoreError, ReaderError, WorkspaceError
from .files import inside
from .report import FileOutcome, IngestCallback, IngestProgress, IngestReport

if TYPE_CHECKING:
    from ..index import VectorStoreIndex
    from ..types import Document
    from .workspace import Workspace

logger = logging.getLogger(__name__)

UPLOAD_PREFIX = "upload:"
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
    return list(dict.fromkeys(p.resolve() if p.exists() else p for p in files))


def id_base(workspace: Workspace, name: str, path: Path) -> str:
    """``upload:<relative name>`` inside the index's upload folder, else the resolved path."""
    resolved = path.resolve()
    uploads = workspace.upload_dir(name)
    if uploads in resolved.parents:
        return UPLOAD_PREFIX + resolved.relative_to(uploads).as_posix()
    return str(resolved)


def open_index(workspace: Workspace, name: str, *, chunk_size: int | None,
               chunk_overlap: int | None) -> VectorStoreIndex:
    """The index to add to, with a splitter for the requested (or recorded) chunking."""
    from ..chunking import SentenceSplitter
    from ..index import VectorStoreIndex

    record = workspace.record(name)
    size = chunk_size if chunk_size is not None else record.chunk_size
    overlap = chunk_overlap if chunk_overlap is not None else record.chunk_overlap
    options = {k: v for k, v in (("chunk_size", size), ("chunk_overlap", overlap)) if v is not None}
    splitter = SentenceSplitter(**options)
    embedder = workspace.embedder_for(name)
    path = workspace.index_path(name)
    if path.is_dir():
        return VectorStoreIndex.load(path, embedder=embedder, splitter=splitter)
    return VectorStoreIndex(embedder=embedder, splitter=splitter)


def ingest_into(
    workspace: Workspace,
    name: str,
    paths: list[str | Path],
    *,
    chunk_size: int | None = None,
    chunk_overlap: int | None = None,
    progress: IngestCallback | None = None,
    force: bool = False,
) -> IngestReport:
    """Ingest files into index ``name`` (which exists); see ``Workspace.ingest``."""
    started = time.perf_counter()
    report = IngestReport(index=name)
    files = collect_files(paths)
    if not files:
        raise WorkspaceError(
            f"nothing to ingest in {', '.join(map(str, paths)) or 'no paths'}: give files or "
            "folders holding supported documents (.pdf .txt .md .docx .html .csv .json ...)"
        )
    index = open_index(workspace, name, chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    for number, path in enumerate(files, 1):
        emit = _emitter(progress, str(path), number, len(files))
        outcome, removed = ingest_file(workspace, name, index, path, emit=emit, force=force)
        report.files.append(outcome)
        report.removed_documents += removed
        emit(outcome.status if outcome.status != "indexed" else "done", 1.0)
    if report.indexed or report.removed_documents or not workspace.index_path(name).is_dir():
        if progress is not None:
            progress(IngestProgress("", len(files), len(files), "saving", 1.0))
        index.persist(workspace.index_path(name))
        _touch_record(workspace, name, chunk_size, chunk_overlap)
    report.seconds = time.perf_counter() - started
    return report


def _emitter(progress: IngestCallback | None, path: str, number: int,
             count: int) -> Callable[[str, float], None]:
    def emit(stage: str, fraction: float) -> None:
        if progress is not None:
            progress(IngestProgress(path, number, count, stage, fraction))

    return emit


def ingest_file(
    workspace: Workspace,
    name: str,
    index: VectorStoreIndex,
    path: Path,
    *,
    emit: Callable[[str, float], None],
    force: bool = False,
) -> tuple[FileOutcome, int]:
    """Read one file and refresh its documents; returns its outcome and stale documents removed."""
    started = time.perf_counter()
    emit("reading", 0.0)
    base = id_base(workspace, name, path) if path.exists() else str(path)
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


def _touch_record(workspace: Workspace, name: str, chunk_size: int | None,
                  chunk_overlap: int | None) -> None:
    from .chats import now_iso

    record = workspace.record(name)
    if chunk_size is not None:
        record.chunk_size = chunk_size
    if chunk_overlap is not None:
        record.chunk_overlap = chunk_overlap
    record.updated = now_iso()
    workspace.save_record(name, record)


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


def matching_documents(workspace: Workspace, index: VectorStoreIndex, name: str,
                       target: str) -> list[str]:
    """Document ids named by ``target``: an id, a file's id base or path, or a file name."""
    ids = index.ref_doc_ids()
    if target in ids:
        return [target]
    candidate = Path(target).expanduser()
    keys = {target, UPLOAD_PREFIX + target}
    if candidate.exists():
        keys.add(id_base(workspace, name, candidate))
    found = [i for i in ids if file_key(i) in keys]
    if found:
        return found
    return [i for i in ids if index.doc_info(i).metadata.get("file_name") == target]


def _require_documents(workspace: Workspace, index: VectorStoreIndex, name: str,
                       target: str) -> list[str]:
    found = matching_documents(workspace, index, name, target)
    if not found:
        files = sorted({r["file"] for r in files_of(index)})
        shown = ", ".join(files[:8]) + (" ..." if len(files) > 8 else "") or "none"
        raise WorkspaceError(
            f"no document {target!r} in index {name!r}: give a document id, a file path or a "
            f"file name (files: {shown})"
        )
    return found


def delete_documents(workspace: Workspace, name: str, target: str) -> list[str]:
    """Remove the matching documents, persist, and drop an uploaded original left with none."""
    index = workspace.load_index(name)
    doomed = _require_documents(workspace, index, name, target)
    for doc_id in doomed:
        index.delete_ref_doc(doc_id)
    index.persist(workspace.index_path(name))
    remaining = {file_key(i) for i in index.ref_doc_ids()}
    for key in {file_key(i) for i in doomed} - remaining:
        if key.startswith(UPLOAD_PREFIX):
            upload = workspace.upload_dir(name) / key[len(UPLOAD_PREFIX):]
            inside(workspace.root, upload).unlink(missing_ok=True)
    _touch_record(workspace, name, None, None)
    return doomed


def source_file(workspace: Workspace, name: str, index: VectorStoreIndex, doc_id: str) -> Path:
    """Where a document's file is now: the upload folder for uploads, else its recorded path."""
    key = file_key(doc_id)
    if key.startswith(UPLOAD_PREFIX):
        return workspace.upload_dir(name) / key[len(UPLOAD_PREFIX):]
    return Path(index.doc_info(doc_id).metadata.get("file_path") or key)


def reindex(workspace: Workspace, name: str, target: str) -> IngestReport:
    """Read the matching documents' files again and re-embed them, changed or not."""
    index = workspace.load_index(name)
    doc_ids = _require_documents(workspace, index, name, target)
    files = list(dict.fromkeys(source_file(workspace, name, index, i) for i in doc_ids))
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise WorkspaceError(
            f"cannot re-index: the original file(s) {', '.join(missing)} are gone; ingest them "
            "from their new location, or delete the document"
        )
    return ingest_into(workspace, name, files, force=True)
