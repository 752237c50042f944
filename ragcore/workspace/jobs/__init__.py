"""Background jobs on a workspace index: ingest, re-index, delete.

    journal.py    a job, its progress, and its journal on disk
    journal_pg.py the journal as rows of a shared Postgres: heartbeat, cancel requests
                  (``open_journal``: files unless the URL is set)
    runner.py     runs jobs in threads: one queue per index, cancel, resume after a restart
    resume.py     what a resumed job does: the same index (never a deleted one), what is left
    estimate.py   how much work a job is (chunks, counted before embedding, then exactly)
    remaining.py  its time left, a range while its rates or its count disagree
    rates.py      how fast this computer embeds, per model, measured by jobs or a calibration
    ocr_work.py   a job's scanned pages: counted at its start, timed as OCR reads them
    work_queue.py a Postgres work queue (pgqueuer): tasks under leases, taken by any worker
    queued_ingest.py  files kept in the database, batches queued, ``ragcore worker``'s handler
"""

from __future__ import annotations

from ...lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {  # imported on first use
    "Job": ".journal",
    "JobRunner": ".runner",
    "runner_for": ".runner",
    "SAMPLE_BYTES": ".estimate",
    "forecast": ".estimate",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
