"""A big plain text file ingested a part at a time, so memory holds a part, not the file.

``readers.text.text_parts`` reads a big UTF-8 text in parts of a few million characters (one
document each, ``#page=N``); here each part is read, compared with the index, split, embedded
and added (by ``ingest.FileWork``, handed in) before the next is read, with the batch saves of
any ingestion between slices. A text holding one character above U+00FF is four bytes per character in
Python: read whole, a 205 MB file cost 1.6 GB; in parts it costs a part. The file's documents
it no longer has (it shrank, or was indexed whole before) are removed once its parts are in.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Protocol

from ...errors import RagcoreError, ReaderError
from ...types import Document
from .commits import Cancelled
from .report import FileOutcome

if TYPE_CHECKING:
    from ..handle import IndexHandle


def read_in_parts(path: Path, base: str) -> Iterator[Document] | None:
    """The documents of ``path`` one part at a time, if it is a plain text file big enough to
    be read so (``readers.text.text_parts``); else None (it is read whole)."""
    from ...readers.files import READERS, iter_documents
    from ...readers.text import read_plain_text, text_parts

    if not path.is_file() or READERS.get(path.suffix.lower()) is not read_plain_text:
        return None
    parts = text_parts(path)
    return None if parts is None else path_hidden(iter_documents(path, parts, doc_id_base=base))


def path_hidden(documents: Iterable[Document]) -> Iterator[Document]:
    """``documents`` with their absolute path left out of the header the LLM reads: a chunk's
    budget counts that header, and where the workspace lives must not move chunk borders."""
    for doc in documents:
        if "file_path" not in doc.excluded_llm_metadata_keys:
            doc.excluded_llm_metadata_keys.append("file_path")
        yield doc


class PartWork(Protocol):
    """One part's work (``ingest.FileWork`` of one document)."""

    total: int
    tokens: int  # of the chunks embedded

    def run(self) -> None: ...

    def keep_partial(self) -> int: ...


def ingest_parts(handle: IndexHandle, path: Path, documents: Iterator[Document], *,
                 emit: Callable[..., None], started: float, todo: Callable[[Document], bool],
                 work: Callable[[Document, Callable[..., None]], PartWork],
                 stale: Callable[[set[str]], list[str]]) -> tuple[FileOutcome, int]:
    """Refresh the file's documents as ``documents`` yields them: each one ``todo`` says is new
    or changed gets its ``work``; then the file's documents ``stale`` finds among those it
    no longer has are removed. Its outcome and the count removed (as ``ingest.ingest_file``)."""
    index, seen, chunks, tokens = handle.index, set(), 0, 0
    size, read = max(path.stat().st_size, 1), 0
    part: PartWork | None = None
    changed = False
    try:
        for document in documents:
            seen.add(document.doc_id)
            if todo(document):
                part = work(document, _scaled(emit, read / size, len(document.text) / size,
                                              chunks, tokens))
                part.run()
                chunks, tokens, changed = chunks + part.total, tokens + part.tokens, True
            else:
                chunks += len(index.doc_info(document.doc_id).node_ids)
            read += len(document.text)
    except Cancelled:
        kept = chunks + (part.keep_partial() if part is not None else 0)
        return _outcome(path, "cancelled", started, chunks=kept, documents=len(seen)), 0
    except RagcoreError as exc:
        if part is not None:
            part.keep_partial()  # the parts and chunks added before the failure stay
        reason, hint = ((exc.problem, exc.hint) if isinstance(exc, ReaderError) else
                        (str(exc), "check the file, or the chunk size and embedding settings"))
        return _outcome(path, "failed", started, reason=reason, hint=hint), 0
    gone = stale(seen)
    for doc_id in gone:
        index.delete_ref_doc(doc_id)
    status = "indexed" if changed or gone else "unchanged"
    return _outcome(path, status, started, chunks=chunks if changed else 0,
                    documents=len(seen)), len(gone)


def _scaled(emit: Callable[..., None], start: float, share: float,
            chunks_before: int, tokens_before: int) -> Callable[..., None]:
    """``emit`` for one part: its fraction placed within the file's, its chunks and tokens
    after the parts' before it."""
    def part_emit(stage: str, fraction: float, done: int = 0, total: int = 0, *,
                  exact: bool = False, tokens: int = 0) -> None:  # a part's count: not the file's
        emit(stage, min(start + share * fraction, 1.0), chunks_before + done,
             chunks_before + total, tokens=tokens_before + tokens)

    return part_emit


def _outcome(path: Path, status: str, started: float, **fields: object) -> FileOutcome:
    return FileOutcome(str(path), status, seconds=time.perf_counter() - started,  # type: ignore[arg-type]
                       **fields)  # type: ignore[arg-type]
