"""Summaries of a workspace index's files and of the whole index, made once and kept on disk.

A file's summary (all its documents: a PDF's pages together) is made on demand by
``ragcore.summaries.index.summarize_document`` and cached in ``summaries/<index uid>.json``
under the content hashes of its documents and the method that made it ("extractive" or the
model's name): it stays valid until the file changes or another model is asked, however the
rest of the index changes. The index's own summary is cached under the index revision. With a
model, the index summary is a tree_summarize over the files' summaries (LlamaIndex's document
summaries one level up); offline it is the extractive summary of all the chunks. How a request
for a summary is answered (at once from what is kept, or fresh part by part) is
``conversation.summary_reply``.
"""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any, Sequence

from ..llms.base import LLM
from ..summaries.index import (
    EXTRACTIVE,
    EXTRACTIVE_VERSION,
    DocumentSummary,
    SummaryIndex,
    is_offline,
    summarize_document,
    summarize_nodes,
)
from ..trace import Trace
from ..types import Node
from .files import read_json, validate_name, write_json_atomic
from .ingest.index_files import files_of
from ..present.format import counted

INDEX_KEY = "__index__"
CACHE_FORMAT = "ragcore-summaries"
INDEX_SUMMARY_FILES = 12  # files described in an offline index summary
FILE_LINE_CHARS = 320  # characters of each file's line there
_PUT_LOCK = threading.Lock()
EXTRACTIVE_NOTE = (
    "An extractive summary: the sentences that best represent the text, quoted in their order "
    "and chosen with the embedding model. Set up a language model in Settings for a written "
    "summary."
)


def method_of(llm: LLM | None) -> str:
    """The name a summary made with ``llm`` is filed under."""
    return "extractive" if is_offline(llm) else str(getattr(llm, "model", "") or "llm")


class SummaryCache:
    """``<folder>/<index uid>.json``: key -> {fingerprint, summary}."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, uid: str) -> Path:
        return self.folder / f"{validate_name(uid or 'unnamed', what='index uid')}.json"

    def _entries(self, uid: str) -> dict[str, Any]:
        path = self._path(uid)
        if not path.exists():
            return {}
        data = read_json(path, what="summary cache")
        return data.get("summaries", {}) if isinstance(data, dict) else {}

    def get(self, uid: str, key: str, fingerprint: str) -> DocumentSummary | None:
        entry = self._entries(uid).get(key)
        if not isinstance(entry, dict) or entry.get("fingerprint") != fingerprint:
            return None
        return DocumentSummary.from_dict(entry["summary"])

    def forget(self, uid: str) -> None:
        """Drop the index's summaries (it was deleted)."""
        self._path(uid).unlink(missing_ok=True)

    def put(self, uid: str, fingerprint: str, summary: DocumentSummary) -> None:
        # Read, change, write: an ingest job's summarise stage and a Summarise click in the
        # app's other thread must not drop each other's entry.
        with _PUT_LOCK:
            entries = self._entries(uid)
            entries[summary.key] = {"fingerprint": fingerprint, "summary": summary.to_dict()}
            write_json_atomic(self._path(uid), {"format": CACHE_FORMAT, "summaries": entries})


class PgSummaryCache:
    """The same cache as rows of the shared database's ``summaries`` table (``pg_team_db``
    migration 6), so a summary one server made is every server's."""

    def __init__(self, url: str) -> None:
        from .team.pg_team_db import open_pg_team_db

        self.db = open_pg_team_db(url)

    def get(self, uid: str, key: str, fingerprint: str) -> DocumentSummary | None:
        row = self.db.one("SELECT fingerprint, body FROM summaries WHERE index_uid = ? AND "
                          "key = ?", (uid, key))
        if row is None or row["fingerprint"] != fingerprint:
            return None
        return DocumentSummary.from_dict(json.loads(row["body"]))

    def forget(self, uid: str) -> None:
        self.db.execute("DELETE FROM summaries WHERE index_uid = ?", (uid,))

    def put(self, uid: str, fingerprint: str, summary: DocumentSummary) -> None:
        self.db.execute(
            "INSERT INTO summaries (index_uid, key, fingerprint, body) VALUES (?, ?, ?, ?) ON "
            "CONFLICT (index_uid, key) DO UPDATE SET fingerprint = excluded.fingerprint, "
            "body = excluded.body",
            (uid, summary.key, fingerprint, json.dumps(summary.to_dict(), ensure_ascii=False)))


def open_summary_cache(root: Path) -> SummaryCache | PgSummaryCache:
    """The summaries of the workspace at ``root``: ``<root>/summaries/``, or the shared
    database's when ``$RAGCORE_DATABASE_URL`` names one."""
    from .team.team_db import database_url

    url = database_url()
    return PgSummaryCache(url) if url else SummaryCache(Path(root) / "summaries")


def document_names(index: Any) -> dict[str, str]:
    """The index's files: id base -> file name (what the router matches questions against)."""
    return {row["id_base"]: row["file"] for row in files_of(index)}


def summarize_file(
    cache: SummaryCache, uid: str, index: Any, key: str, *,
    llm: LLM | None = None, trace: Trace | None = None,
) -> DocumentSummary:
    """The summary of the file ``key`` (an id base from ``files_of``), cached."""
    row = next((r for r in files_of(index) if r["id_base"] == key), None)
    if row is None:
        raise KeyError(f"the index holds no file {key!r}")
    fingerprint = file_fingerprint(index, row, llm)
    found = cache.get(uid, key, fingerprint)
    if found is not None:
        if trace is not None:
            trace.notes["summary"] = {"method": found.method, "cached": True}
        return found
    made = summarize_document(index, key, row["doc_ids"], title=row["file"], llm=llm, trace=trace)
    cache.put(uid, fingerprint, made)
    return made


def file_fingerprint(index: Any, row: dict, llm: LLM | None) -> str:
    """What a file's cached summary must match: its documents' content hashes and the method."""
    return _fingerprint(_made_by(llm), *(str(index.doc_info(d).hash) for d in row["doc_ids"]))


def unsummarized_files(cache: SummaryCache, uid: str, index: Any,
                       llm: LLM | None) -> list[dict]:
    """The index's files (``files_of`` rows) without a summary by ``llm`` of their content."""
    return [row for row in files_of(index)
            if cache.get(uid, row["id_base"], file_fingerprint(index, row, llm)) is None]


def cached_document_summaries(cache: SummaryCache, uid: str, index: Any,
                              llm: LLM | None) -> list[DocumentSummary]:
    """The summaries by ``llm`` of the index's files that are still valid, made nothing new."""
    found = (cache.get(uid, row["id_base"], file_fingerprint(index, row, llm))
             for row in files_of(index))
    return [summary for summary in found if summary is not None]


def summarize_whole_index(
    cache: SummaryCache, uid: str, revision: int | None, index: Any, *,
    llm: LLM | None = None, trace: Trace | None = None,
) -> DocumentSummary:
    """The summary of the whole index, cached under its revision."""
    fingerprint = _fingerprint(_made_by(llm), str(revision))
    found = cache.get(uid, INDEX_KEY, fingerprint)
    if found is not None:
        if trace is not None:
            trace.notes["summary"] = {"method": found.method, "cached": True}
        return found
    rows = files_of(index)
    doc_ids = [d for row in rows for d in row["doc_ids"]]
    if is_offline(llm):
        text, method = _file_by_file(index, rows, trace), "extractive"
    else:
        text, method = _summary_of_summaries(cache, uid, index, rows, llm, trace)
    made = DocumentSummary(INDEX_KEY, counted(len(rows), "file"), text, method, tuple(doc_ids))
    cache.put(uid, fingerprint, made)
    return made


def _file_by_file(index: Any, rows: Sequence[dict], trace: Trace | None) -> str:
    """Offline: a line or two per file (its most central sentences), file by file.

    One extractive summary over all the chunks would speak only for the largest file; a short
    one per file says what each holds, as a person describing a folder would.
    """
    lines = []
    for row in rows[:INDEX_SUMMARY_FILES]:
        nodes = SummaryIndex.from_index(index, row["doc_ids"]).nodes
        text, _ = summarize_nodes(index, nodes, llm=None, max_chars=FILE_LINE_CHARS,
                                  max_sentences=2, trace=trace)
        if text:
            lines.append(f"- **{row['file']}**: {text}")
    if len(rows) > INDEX_SUMMARY_FILES:
        lines.append(f"- … and {counted(len(rows) - INDEX_SUMMARY_FILES, 'more file')}.")
    return "\n".join(lines)


def _summary_of_summaries(
    cache: SummaryCache, uid: str, index: Any, rows: Sequence[dict], llm: LLM,
    trace: Trace | None,
) -> tuple[str, str]:
    # Each file's summary costs model calls: a large index is described by its first files.
    files = [summarize_file(cache, uid, index, r["id_base"], llm=llm)
             for r in rows[:INDEX_SUMMARY_FILES]]
    nodes = [Node(f"{s.title}\n{s.text}", metadata={"file_name": s.title}) for s in files]
    response = SummaryIndex(nodes).query(
        "Summarise what this collection of documents is about, document by document.",
        llm=llm, trace=trace,
    )
    text = response.text
    if len(rows) > INDEX_SUMMARY_FILES:
        text += f"\n\n(From the first {INDEX_SUMMARY_FILES} of {len(rows)} files.)"
    return text, method_of(llm)


def _made_by(llm: LLM | None) -> str:
    """What a cached summary must have been made by: the model, or this extractive version."""
    return f"{EXTRACTIVE} {EXTRACTIVE_VERSION}" if is_offline(llm) else method_of(llm)


def _fingerprint(*parts: str) -> str:
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:24]


def how_made(summary: Any) -> str:
    """How a summary was made, in a sentence."""
    if summary.method == "extractive":
        return EXTRACTIVE_NOTE
    return f"Written by the language model {summary.method}."
