"""Paths a user gave to ingest into files, and the entries a folder scan passed over.

A folder is scanned recursively by ``SimpleDirectoryReader``; what it passes over (a symbolic
link in a loop, or one leading outside the folder) is reported as a "skipped" line with the
reason, never dropped without a word. ``ingest.py`` reads the files.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import ReaderError, WorkspaceError
from .report import FileOutcome


def collect_files(paths: list[str | Path]) -> list[Path]:
    """Files to ingest: each file as given, each folder scanned recursively (supported types)."""
    return scan_inputs(paths)[0]


def scan_inputs(paths: list[str | Path]) -> tuple[list[Path], list[ReaderError]]:
    """``collect_files``, plus the entries the folder scans passed over, each with the reason
    (a symbolic link in a loop or leading outside its folder): see ``skipped_outcome``."""
    from ...readers import SimpleDirectoryReader

    files: list[Path] = []
    skipped: list[ReaderError] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            reader = SimpleDirectoryReader(input_dir=path, recursive=True)
            files += reader.iter_files()
            skipped += reader.skipped
        else:
            files.append(path)  # a missing file is reported as failed, with the others going on
    if not files:
        passed_over = "".join(f"; skipped {e}" for e in skipped)
        raise WorkspaceError(
            f"nothing to ingest in {', '.join(map(str, paths)) or 'no paths'}{passed_over}: give "
            "files or folders holding supported documents (.pdf .txt .md .docx .html .csv .json ...)"
        )
    return list(dict.fromkeys(p.resolve() if p.exists() else p for p in files)), skipped


def skipped_outcome(error: ReaderError) -> FileOutcome:
    """A report line for an entry a folder scan passed over."""
    return FileOutcome(str(Path(error.path).absolute()), "skipped", reason=error.problem,
                       hint=error.hint)
