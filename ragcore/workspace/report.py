"""What ingesting files into a workspace index did: per-file outcomes, totals, and progress events.

Plain data shared by ``Workspace.ingest`` (which fills it), the CLI (which prints it) and the app
(which shows it as a table). A failure is an entry with the reason and what to do, never an
exception that stops the other files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

FileStatus = Literal["indexed", "unchanged", "failed"]


@dataclass(slots=True)
class FileOutcome:
    """What happened to one file."""

    path: str
    status: FileStatus
    chunks: int = 0
    documents: int = 0
    reason: str = ""
    hint: str = ""
    seconds: float = 0.0

    @property
    def file_name(self) -> str:
        return self.path.replace("\\", "/").rsplit("/", 1)[-1]

    def describe(self) -> str:
        """One plain-words line: 'indexed with 12 chunks', 'unchanged, skipped', 'failed: ...'."""
        if self.status == "indexed":
            return f"indexed with {self.chunks} chunk{'s' if self.chunks != 1 else ''}"
        if self.status == "unchanged":
            return "unchanged, skipped"
        return f"failed: {self.reason}" + (f" ({self.hint})" if self.hint else "")


@dataclass(slots=True)
class IngestReport:
    """Every file's outcome plus totals for one ingestion run."""

    index: str
    files: list[FileOutcome] = field(default_factory=list)
    removed_documents: int = 0
    seconds: float = 0.0

    def _count(self, status: FileStatus) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def indexed(self) -> int:
        return self._count("indexed")

    @property
    def unchanged(self) -> int:
        return self._count("unchanged")

    @property
    def failed(self) -> int:
        return self._count("failed")

    @property
    def chunks(self) -> int:
        """Chunks created or updated in this run."""
        return sum(f.chunks for f in self.files if f.status == "indexed")

    def summary(self) -> str:
        """One line of totals."""
        return (
            f"{len(self.files)} file(s): {self.indexed} indexed ({self.chunks} chunks), "
            f"{self.unchanged} unchanged, {self.failed} failed in {self.seconds:.1f} s"
        )

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "files": [
                {"path": f.path, "status": f.status, "chunks": f.chunks, "documents": f.documents,
                 "reason": f.reason, "hint": f.hint, "seconds": f.seconds}
                for f in self.files
            ],
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "failed": self.failed,
            "chunks": self.chunks,
            "removed_documents": self.removed_documents,
            "seconds": self.seconds,
        }


@dataclass(slots=True, frozen=True)
class IngestProgress:
    """A progress event: which file, which stage, how far through it and through the run."""

    path: str
    file_number: int  # 1-based
    file_count: int
    stage: str  # "reading", "embedding", "done", "failed", "unchanged", "saving"
    file_fraction: float = 0.0  # 0..1 through this file

    @property
    def overall(self) -> float:
        """Fraction of the whole run done, 0..1."""
        if self.file_count == 0:
            return 1.0
        return min(1.0, (self.file_number - 1 + self.file_fraction) / self.file_count)


IngestCallback = Callable[[IngestProgress], None]
