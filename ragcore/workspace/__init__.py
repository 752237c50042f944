"""The workspace on disk: named indexes, uploaded originals, settings and saved chats in one folder.

    workspace.py   ``Workspace``: makes and deletes indexes, uploads and chats under a root;
                   every change to one index happens under that index's write lock
    names.py       an index's folder (chosen once, never moved) and uid are its identity; the
                   name people typed is shown, renamed, and looked up by; what was deleted
    handle.py      an index opened for a change: the loaded index, its record, where they are saved
    ingest.py      files into an open index, one at a time, with a report per file; whole-file
                   lookups for deleting and re-indexing (knows the handle, not the workspace)
    commits.py     when an ingestion saves a batch of work, and stopping it on request
    jobs.py        a background job (ingest, re-index, delete), its progress, its journal on disk
    jobs_runner.py runs jobs in threads: one queue per index, cancel, resume after a restart
    resume.py      what a resumed job does: the same index (never a deleted one), what is left
    estimate.py    how much work a job is (chunks, counted before embedding) and its time left
    ocr_work.py    a job's scanned pages: counted at its start, timed as OCR reads them
    rates.py       how fast this computer embeds, per model, measured by jobs or a calibration
    report.py      what an ingest did: per-file outcomes, totals, progress events (plain data)
    record.py      the record kept beside each index: id, embedding model, chunking, cached counts
    stats.py       what users see of an index, from its manifest and record without loading it
    settings.py    user settings, validated with pydantic, saved as ``settings.json``
    backends.py    settings to live objects: the one place the embedder and the LLM are chosen
    chats.py       saved chats as JSON, and their Markdown/JSON exports
    files.py       safe names, paths kept inside the root, atomic writes, file locks

Team mode (``RAGCORE_AUTH=local``; see docs/teams.md), kept in ``<root>/team.sqlite3``:

    team_db.py     the team database: numbered migrations, WAL, foreign keys
    accounts.py    accounts, roles, the one-time set-up, sign-in (``LOCAL_ADMIN`` otherwise)
    passwords.py   argon2id password hashes, upgraded when their parameters are weaker
    identities.py  accounts signed in by an identity provider (OIDC issuer and subject)
    throttle.py    locking a name or a client out after repeated wrong passwords
    sessions.py    sign-in sessions (token hashes only), expiry, log out everywhere
    grants.py      index owners and shares by index uid, chat authors (storage, no policy)
    access.py      the policy: ``Access.can(user, action, resource)``, filtered listings,
                   the team-mode switch and the network-address check
    audit.py       the audit log of sign-ins, uploads, deletes, shares and refusals
    team.py        ``Team``: all of the above over one database, sharing and ownership changes
    permitted.py   the workspace as one person may see and change it: listings, chats, indexes

More than one app server (``RAGCORE_DATABASE_URL=postgresql://...``): the shared state in Postgres

    pg_team_db.py  the team database on Postgres: the same surface, its own migrations,
                   advisory locks so servers migrate once and write one at a time
    chats_pg.py    saved chats as rows (``open_chats``: files unless the URL is set)
    jobs_pg.py     the job journal as rows: heartbeat, cancel requests (``open_journal``)

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
