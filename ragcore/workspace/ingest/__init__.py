"""Files into a workspace index: read, split, embed and commit, with a report per file.

    index_files.py   files into an open index, one at a time, with a report per file; whole-file
                     lookups for deleting and re-indexing (knows the handle, not the workspace)
    inputs.py        paths a user gave, expanded into files; what a folder scan passed over
    parts.py         a big plain text file ingested a part at a time
    commits.py       when an ingestion saves a batch of work, and stopping it on request
    report.py        what an ingest did: per-file outcomes, totals, progress events (plain data)
    summary_stage.py the summarise stage: each file's summary written as soon as it is indexed
    token_counts.py  token counts per document, so the stats after a job count only its changes
"""

from __future__ import annotations

from ...lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {  # imported on first use
    "files_of": ".index_files",
    "IngestReport": ".report",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
