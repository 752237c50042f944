"""The workspace on disk: named indexes, uploaded originals, settings and saved chats in one folder.

    workspace.py   ``Workspace``: makes and deletes indexes, uploads and chats under a root;
                   every change to one index happens under that index's write lock
    names.py       an index's folder (chosen once, never moved) and uid are its identity; the
                   name people typed is shown, renamed, and looked up by; what was deleted
    handle.py      an index opened for a change: the loaded index, its record, where they are saved
    record.py      the record kept beside each index: id, embedding model, chunking, cached counts
    stats.py       what users see of an index, from its manifest and record without loading it
    settings.py    user settings, validated with pydantic, saved as ``settings.json``
    backends.py    settings to live objects: the one place the embedder and the LLM are chosen
    chats.py       saved chats as JSON, and their Markdown/JSON exports
    conversation.py  one chat turn for the app and the CLI: route (a summary, or a search),
                   answer (the streamed reply), record (into the saved chat)
    chats_pg.py    saved chats as rows of a shared Postgres (``open_chats``: files unless the
                   URL is set)
    summaries.py   summaries of an index's files and of the whole index, kept on disk (or in
                   the shared Postgres when the URL is set)
    database_indexes.py  indexes kept wholly in Postgres, listed and opened beside the folder's
    evaluations.py saved evaluations and question sets
    permitted.py   the workspace as one person may see and change it (the team policy applied
                   to listings, chats, indexes and jobs)
    files.py       safe names, paths kept inside the root, atomic writes, file locks

    ingest/        files into an open index, one at a time, with a report per file; batches,
                   big texts a part at a time, the summarise stage, token counts
    jobs/          background jobs (ingest, re-index, delete): the journal (files or Postgres),
                   the runner, resume, estimates, embedding rates, OCR pages
    team/          team mode (``RAGCORE_AUTH=local``, docs/teams.md): accounts, passwords,
                   sessions, the lockout, grants, the access policy, audit, the team database
                   (SQLite or Postgres)

The CLI and the app share it. ``Workspace`` is imported on first use, so importing a light
module here (``ingest.report``, ``chats``) does not pull in pydantic or the index.
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
