"""What resuming a finished job submits: the same work on the same index, never a new index.

A job that was cancelled, failed or whose process died can be resumed. Its index is known by
folder and uid (``Job.index_uid``): a job whose index was deleted since (``Job.index_deleted``,
or another index with another uid in its folder now) is refused with the reason, so a resume
can never make a deleted index again. An ingest resumes with the files it had not saved
complete; a file saved in part is continued from its saved chunks by the ingestion itself
(``ingest``: a partial document of unchanged content keeps its chunks).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import WorkspaceError
from .journal import Job
from ..names import index_uid, require_same


def resumed_job(workspace: Any, old: Job) -> Job:
    """The job that does what ``old`` left undone (refused if its index was deleted)."""
    if old.index_deleted:
        raise WorkspaceError(f"the index “{old.index_display or old.index}” was deleted: "
                             "nothing to resume")
    require_same(workspace, old.index, old.index_uid, old.index_display)
    todo = [f for f in old.files if f not in set(old.saved_files) and Path(f).exists()]
    files = todo or old.files
    return Job(old.kind, old.index, files=files, target=old.target,
               chunk_size=old.chunk_size, chunk_overlap=old.chunk_overlap,
               file_count=len(files) or 1, resumed_from=old.id,
               index_display=old.index_display,
               index_uid=old.index_uid or index_uid(workspace, old.index))
