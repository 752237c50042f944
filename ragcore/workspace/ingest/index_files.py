"""Files into an open index: per-file read/split/embed with reports, and whole-file lookups.

Everything here works on an ``IndexHandle`` (``handle.py``): the loaded index, its record and
its upload folder. Nothing here opens or locks an index or knows the workspace: ``Workspace``
opens the handle under the index's write lock and calls these; ``ingest_files`` saves the index
through the handle after every batch of work (``commits``), so a cancel or a crash keeps the
batches saved before it, and an unchanged index is never rewritten; after each save a thread
runs the segment merges due (``ragcore.index.disk.merger``), waited for when the ingestion ends. A
file's chunks are embedded a slice at a time (``FileWork``): between slices a cancel is noticed
and a due batch is saved.

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
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ...chunking.lazy import ChunkCount
from ...errors import RagcoreError, ReaderError, WorkspaceError
from ...index.disk.merger import BackgroundMerger
from ...types import Document
from .commits import PARTIAL_KEY, Batching, Cancelled, Commits
from .token_counts import embedded_tokens
from ..handle import UPLOAD_PREFIX, IndexHandle
from .parts import ingest_parts, path_hidden, read_in_parts
from .inputs import collect_files, scan_inputs, skipped_outcome  # noqa: F401 - lived here
from .report import FileOutcome, IngestCallback, IngestProgress, IngestReport

if TYPE_CHECKING:
    from ...chunking.lazy import DocumentChunks
    from ...index import VectorStoreIndex

logger = logging.getLogger(__name__)

_SUFFIX = re.compile(r"#(page|line)=\d+$")
_READ_SHARE = 0.1  # share of a file's progress bar spent reading, the rest embedding
SLICE_SECONDS = 2.0  # aimed time to embed one slice of chunks (between checks for cancel)


def file_key(doc_id: str) -> str:
    """The file part of a document id ('/a/b.pdf#page=3' -> '/a/b.pdf')."""
    return _SUFFIX.sub("", doc_id)


def ingest_files(
    handle: IndexHandle,
    files: list[Path],
    *,
    progress: IngestCallback | None = None,
    force: bool = False,
    cancel: Callable[[], bool] | None = None,
    batching: Batching | None = None,
    on_commit: Callable[[list[str]], None] | None = None,
    skipped: list[ReaderError] | None = None,
) -> IngestReport:
    """Refresh each file's documents in the index, saving it after every batch of work.

    ``force`` re-embeds files whose content did not change (re-indexing). ``cancel`` is asked
    between slices of chunks; when it says stop, what was finished is saved and the report says
    ``cancelled``. ``on_commit`` gets the files saved complete after each save (a job journal
    keeps them, so a resumed job skips them). An unchanged index is never rewritten.
    ``skipped`` (what folder scans passed over) opens the report as "skipped" lines.
    """
    started = time.perf_counter()
    report = IngestReport(index=handle.name, files=[skipped_outcome(e) for e in skipped or ()])

    last = [IngestProgress("", 0, len(files), "saving", 0.0)]  # where a batch save happens

    def track(event: IngestProgress) -> None:
        last[0] = event
        if progress is not None:
            progress(event)

    def writing() -> None:
        if progress is not None:
            progress(replace(last[0], stage="saving"))

    merger = BackgroundMerger(handle.index, handle.folder)  # merges after commits, not in them
    commits = Commits(handle, batching or Batching(), on_commit=on_commit, on_writing=writing,
                      cancel=cancel, after_save=merger.start)
    for number, path in enumerate(files, 1):
        emit = _emitter(track, str(path), number, len(files))
        try:
            commits.check_cancel()
            outcome, removed = ingest_file(handle, path, emit=emit, force=force, commits=commits)
        except Cancelled:
            report.cancelled = True
            break
        report.files.append(outcome)
        report.removed_documents += removed
        if outcome.status == "cancelled":
            report.cancelled = True
            break
        commits.file_done(str(path))
        emit(outcome.status if outcome.status != "indexed" else "done", 1.0)
        if commits.due():
            commits.save()
    last[0] = IngestProgress("", len(files), len(files), "saving", 1.0)
    commits.save()
    merger.wait()  # the segment count stays bounded when the ingestion ends
    report.commits = commits.count
    report.seconds = time.perf_counter() - started
    return report


def _emitter(progress: IngestCallback | None, path: str, number: int,
             count: int) -> Callable[..., None]:
    def emit(stage: str, fraction: float, done: int = 0, total: int = 0, *,
             ocr: tuple[int, int] = (0, 0), exact: bool = False, tokens: int = 0) -> None:
        if progress is not None:
            progress(IngestProgress(path, number, count, stage, fraction, done, total, *ocr, exact,
                                    tokens))

    return emit


def ingest_file(
    handle: IndexHandle,
    path: Path,
    *,
    emit: Callable[..., None],
    force: bool = False,
    commits: Commits | None = None,
) -> tuple[FileOutcome, int]:
    """Read one file and refresh its documents; returns its outcome and stale documents removed.

    Its chunks are embedded a slice at a time; between slices ``commits`` may save the index
    (a document not finished yet goes in marked partial) or stop on cancel, in which case the
    outcome is ``cancelled`` with the chunks kept.
    """
    started = time.perf_counter()
    index = handle.index
    commits = commits or Commits(handle)
    emit("reading", 0.0)
    base = handle.id_base(path) if path.exists() else str(path)
    try:
        _check_size(path, handle.max_file_bytes)
        parts = read_in_parts(path, base)  # a big plain text: a part at a time
        documents = _read(path, base, emit) if parts is None else []
    except ReaderError as exc:
        return FileOutcome(str(path), "failed", reason=exc.problem, hint=exc.hint,
                           seconds=time.perf_counter() - started), 0
    if parts is not None:
        return ingest_parts(
            handle, path, parts, emit=emit, started=started,
            todo=lambda d: force or _changed(index, d),
            work=lambda d, part_emit: FileWork(handle, [d], part_emit, commits, resume=not force),
            stale=lambda seen: [i for i in index.ref_doc_ids()
                                if file_key(i) == base and i not in seen])
    new_ids = {d.doc_id for d in documents}
    stale = [i for i in index.ref_doc_ids() if file_key(i) == base and i not in new_ids]
    for doc_id in stale:
        index.delete_ref_doc(doc_id)
    latest = list({d.doc_id: d for d in documents}.values())
    todo = [d for d in latest if force or _changed(index, d)]
    if not todo:
        return FileOutcome(str(path), "indexed" if stale else "unchanged",
                           documents=len(documents),
                           seconds=time.perf_counter() - started), len(stale)
    emit("splitting", _READ_SHARE / 2)
    work: FileWork | None = None
    try:
        work = FileWork(handle, todo, emit, commits, resume=not force)
        work.run()
    except Cancelled:
        kept = work.keep_partial() if work is not None else 0
        return FileOutcome(str(path), "cancelled", chunks=kept, documents=len(documents),
                           seconds=time.perf_counter() - started), len(stale)
    except RagcoreError as exc:
        if work is not None:
            work.keep_partial()  # the chunks added before the failure stay, marked partial
        return FileOutcome(str(path), "failed", reason=str(exc),
                           hint="check the file, or the chunk size and embedding settings",
                           seconds=time.perf_counter() - started), len(stale)
    return FileOutcome(str(path), "indexed", chunks=work.total, documents=len(documents),
                       seconds=time.perf_counter() - started), len(stale)


def _changed(index: VectorStoreIndex, document: Document) -> bool:
    info = index.doc_info(document.doc_id)
    return info is None or info.hash is None or info.hash != document.hash


class FileWork:
    """One file's documents to (re)index, a slice of chunks at a time.

    Each document's chunks are found and built a slice at a time (``chunking.lazy``), embedded,
    and added to the index at once, so neither the file's nodes nor its vectors are ever all in
    memory: the index holds what was added since its last save, and a save moves that to disk.
    A cancel is noticed between slices, also while a huge text is still being split. A document
    under way is in the index marked partial (``PARTIAL_KEY``), its count kept current at each
    save, and gets its own hash and metadata when its last chunk is in. With ``resume``, a
    document saved in part with the same text, metadata and chunking goes on after its saved
    chunks (node ids are stable). Progress counts the tokens embedded too (``jobs.remaining``)."""

    def __init__(self, handle: IndexHandle, documents: list[Document],
                 emit: Callable[..., None], commits: Commits, *, resume: bool = True) -> None:
        from ...chunking.lazy import document_chunks

        self.handle, self.emit, self.commits, self.resume = handle, emit, commits, resume
        self.chunks = [document_chunks(handle.index.splitter, doc) for doc in documents]
        self.count = ChunkCount(self.chunks)  # split ahead, the rest projected; exact or not
        self.done, self.tokens, self.piece = 0, 0, (1, 0)  # chunks and tokens in; the slice's
        self.current: tuple[DocumentChunks, int] | None = None  # document under way, chunks in

    @property
    def total(self) -> int:
        """The file's chunks: exact once every document is split, projected until then."""
        return max(self.done, self.count()[0])

    def run(self) -> None:
        from ...embeddings.base import embed_nodes

        index = self.handle.index
        batching = self.commits.batching
        limit = max(1, min(batching.slice, batching.chunks))  # a batch holds whole slices
        size = min(limit, 32)
        self._progress(0, 0)
        for chunks in self.chunks:
            doc = chunks.document
            saved = self._saved_part(chunks) if self.resume else 0
            if not saved:
                index.upsert_documents([_marked(doc, 0, chunks.estimate())], [],
                                       np.zeros((0, 0), np.float32))
            else:  # saved before: done, not embedded now (said apart, for the tokens' sake)
                self.done += saved
                self._progress(0, 0)
            self.current = (chunks, saved)
            while self.current is not None:
                position = self.current[1]
                if not chunks.finished(position):
                    piece = chunks.nodes(position, position + size)
                    started, self.piece = time.monotonic(), (len(piece), embedded_tokens(piece))
                    vectors = embed_nodes(index.embedder, piece, progress=self._progress)
                    index.insert_nodes(piece, vectors=vectors)
                    # Slices of about SLICE_SECONDS: a cancel is noticed soon on a slow machine,
                    # and a fast embedder still gets batches long enough to sort by length.
                    rate = len(piece) / max(time.monotonic() - started, 1e-3)
                    size = max(min(limit, 16), min(limit, int(rate * SLICE_SECONDS)))
                    position, self.done = position + len(piece), self.done + len(piece)
                    self.tokens += self.piece[1]
                    self.commits.added(len(piece))
                self.current = None if chunks.finished(position) else (chunks, position)
                if self.current is None:
                    index.set_document_info(doc)  # complete: its own hash and metadata
                if self.commits.due():
                    self.keep_partial()
                    self.commits.save()
                    self._progress(0, 0)  # embedding again, not "saving" until the next slice
                self.commits.check_cancel()

    def _saved_part(self, chunks: DocumentChunks) -> int:
        """How many chunks of the document an earlier, stopped ingestion saved, if it was of
        this same content and chunking (else 0: it is done again from its first chunk)."""
        info = self.handle.index.doc_info(chunks.document.doc_id)
        mark = info.metadata.get(PARTIAL_KEY, "") if info is not None else ""
        added, _, count = str(mark).removesuffix(" chunks").partition(" of ")
        if not (added.isdigit() and count.isdigit()) or int(added) != len(info.node_ids):
            return 0
        saved = int(added)
        if not saved or info.hash != _marked(chunks.document, saved, int(count)).hash \
                or chunks.finished(saved - 1):
            return 0
        return saved if chunks.nodes(saved - 1, saved)[0].node_id in info.node_ids else 0

    def _progress(self, done: int, total: int) -> None:
        self.commits.check_cancel()
        (counted, exact), embedded = self.count(), self.done + done
        expected = max(self.done, counted)  # ``total``, and whether it is counted or projected
        fraction = _READ_SHARE + (1 - _READ_SHARE) * embedded / max(expected, 1)
        tokens = self.tokens + self.piece[1] * done // max(self.piece[0], 1)
        self.emit("embedding", min(fraction, 1.0), embedded, expected, exact=exact, tokens=tokens)

    def keep_partial(self) -> int:
        """Record how far the document under way got (its chunks so far are in the index);
        returns how many chunks of this file are in the index now."""
        if self.current is not None:
            chunks, added = self.current
            self.handle.index.set_document_info(
                _marked(chunks.document, added, chunks.estimate()))
        return self.done


def _marked(doc: Document, added: int, count: int) -> Document:
    """``doc`` marked as partly indexed: its hash differs, so the next ingest re-does it."""
    return Document(
        text=doc.text, doc_id=doc.doc_id,
        metadata={**doc.metadata, PARTIAL_KEY: f"{added} of {count} chunks"},
        excluded_embed_metadata_keys=doc.excluded_embed_metadata_keys,
        excluded_llm_metadata_keys=doc.excluded_llm_metadata_keys,
    )


def _check_size(path: Path, limit: int | None) -> None:
    size = path.stat().st_size if path.is_file() else 0
    if limit is not None and size > limit:
        raise ReaderError(
            path, f"is {size / 1e6:,.0f} MB, over the limit of {limit / 1e6:,.0f} MB per file",
            "raise 'Largest file' on the Settings page (max_file_mb in the workspace settings), "
            "or split the file")


def _read(path: Path, base: str, emit: Callable[..., None]) -> list[Document]:
    """The file's documents; a PDF's pages read by OCR are reported as "reading" progress."""
    from ...readers import load_file
    from ...readers.directory import read_failure

    def ocr_progress(done: int, total: int) -> None:
        emit("reading", _READ_SHARE / 2 * done / max(total, 1), ocr=(done, total))

    if not path.exists():
        raise ReaderError(path, "does not exist", "check the path")
    if not path.is_file():
        raise ReaderError(path, "is not a regular file", "give a file or a folder")
    try:
        documents = load_file(path, doc_id_base=base, ocr_progress=ocr_progress)
    except ReaderError:
        raise
    except Exception as exc:  # a reader bug on one odd file must not stop the other files
        raise read_failure(path, exc) from exc
    return list(path_hidden(documents))


# -- whole files: listing, deleting, re-indexing ----------------------------------------------


def files_of(index: VectorStoreIndex) -> list[dict[str, Any]]:
    """One row per source file: name, path, id base, documents, chunks, characters, doc ids,
    and whether a document of it went in partly (an ingestion was cancelled or killed)."""
    rows: dict[str, dict[str, Any]] = {}
    for info in index.doc_infos():  # one read of every document (one query in a database)
        doc_id, key = info.doc_id, file_key(info.doc_id)
        row = rows.setdefault(key, {
            "file": info.metadata.get("file_name") or Path(key).name, "id_base": key,
            "path": info.metadata.get("file_path", ""), "documents": 0, "chunks": 0,
            "characters": 0, "indexed_at": info.indexed_at, "doc_ids": [], "incomplete": False})
        row["incomplete"] = row["incomplete"] or PARTIAL_KEY in info.metadata
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
    return [i.doc_id for i in index.doc_infos() if i.metadata.get("file_name") == target]


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
    """Remove the matching documents from the loaded index; returns their ids and the uploaded
    originals no remaining document comes from (the caller deletes those once it is saved)."""
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
            f"cannot re-index: the original {'file' if len(missing) == 1 else 'files'} "
            f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} gone; ingest them "
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
