"""The workspace on disk: named indexes, uploaded originals, settings and saved chats in one folder.

    workspace.py   ``Workspace``: names, moves and deletes indexes, uploads and chats under a root
    ingest.py      files into an index, one at a time, with a report per file; per-file deletion
    report.py      what an ingest did: per-file outcomes, totals, progress events (plain data)
    record.py      the record kept beside each index (embedding model, chunking) and its stats
    settings.py    user settings, validated with pydantic, saved as ``settings.json``
    backends.py    settings to live objects: the one place the embedder and the LLM are chosen
    chats.py       saved chats as JSON, and their Markdown/JSON exports
    files.py       safe names, paths kept inside the root, atomic writes, file locks

The CLI and the app share it. ``Workspace`` is imported on first use, so importing a light
module here (``report``, ``chats``) does not pull in pydantic or the index.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "Workspace": ".workspace",
    "default_root": ".workspace",
    "DEFAULT_ROOT": ".workspace",
    "WORKSPACE_ENV": ".workspace",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
