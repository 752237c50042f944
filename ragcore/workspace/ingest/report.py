"""What ingesting files into a workspace index did: per-file outcomes, totals, and progress events.

Plain data shared by ``Workspace.ingest`` (which fills it), the CLI (which prints it) and the app
(which shows it as a table). A failure is an entry with the reason and what to do, never an
exception that stops the other files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Literal

from ...present.format import counted

# "skipped": passed over by a folder scan (a symbolic link in a loop or leading outside)
FileStatus = Literal["indexed", "unchanged", "failed", "cancelled", "skipped"]


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
        """One plain-words line: 'indexed: 12 passages', 'unchanged, skipped', 'failed: ...'."""
        if self.status == "indexed":
            return f"indexed: {self.chunks:,} passage{'s' if self.chunks != 1 else ''}"
        if self.status == "unchanged":
            return "unchanged, skipped"
        if self.status == "cancelled":
            return (f"cancelled; {self.chunks:,} passage{'s' if self.chunks != 1 else ''} "
                    "finished so far are kept (ingest it again to complete it)")
        return f"{self.status}: {self.reason}" + (f" ({self.hint})" if self.hint else "")


@dataclass(slots=True)
class IngestReport:
    """Every file's outcome plus totals for one ingestion run."""

    index: str
    files: list[FileOutcome] = field(default_factory=list)
    removed_documents: int = 0
    seconds: float = 0.0
    cancelled: bool = False  # stopped on request; what was committed before is kept
    commits: int = 0  # how many times the index was saved (once per batch of work)

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
        """Chunks created or updated in this run (kept ones of a cancelled file included)."""
        return sum(f.chunks for f in self.files if f.status in ("indexed", "cancelled"))

    def summary(self) -> str:
        """One line of totals."""
        line = (
            f"{counted(len(self.files), 'file')}: {self.indexed} indexed "
            f"({counted(self.chunks, 'passage')}), "
            f"{self.unchanged} unchanged, {self.failed} failed"
            + (f", {self._count('skipped')} skipped" if self._count("skipped") else "")
            + f" in {self.seconds:.1f} s"
        )
        return line + (", then cancelled: the work finished before is kept" if self.cancelled
                       else "")

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
            "cancelled": self.cancelled,
            "commits": self.commits,
        }

    @classmethod
    def from_dict(cls, data: dict) -> IngestReport:
        """The report ``to_dict`` wrote (a job journal keeps it)."""
        files = [FileOutcome(str(f["path"]), f["status"], int(f.get("chunks", 0)),
                             int(f.get("documents", 0)), str(f.get("reason", "")),
                             str(f.get("hint", "")), float(f.get("seconds", 0.0)))
                 for f in data.get("files", [])]
        return cls(str(data.get("index", "")), files, int(data.get("removed_documents", 0)),
                   float(data.get("seconds", 0.0)), bool(data.get("cancelled", False)),
                   int(data.get("commits", 0)))


@dataclass(slots=True, frozen=True)
class IngestProgress:
    """A progress event: which file, which stage, how far through it and through the run."""

    path: str
    file_number: int  # 1-based
    file_count: int
    stage: str  # "reading", "splitting", "embedding", "saving", "done", "failed", "unchanged"
    file_fraction: float = 0.0  # 0..1 through this file
    chunks_done: int = 0  # while embedding: chunks of this file embedded so far
    chunks_total: int = 0  # while embedding: chunks of this file to embed
    ocr_done: int = 0  # while reading: scanned pages of this file read by OCR so far
    ocr_total: int = 0  # while reading: its scanned pages OCR reads (0: none, or not yet)
    chunks_exact: bool = False  # while embedding: chunks_total is counted, not projected
    tokens_done: int = 0  # while embedding: tokens of the chunks_done (their embedded text)

    @property
    def overall(self) -> float:
        """Fraction of the whole run done, 0..1."""
        if self.file_count == 0:
            return 1.0
        return min(1.0, (self.file_number - 1 + self.file_fraction) / self.file_count)


IngestCallback = Callable[[IngestProgress], None]
