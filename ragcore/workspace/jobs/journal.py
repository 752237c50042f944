"""Background jobs on a workspace index: what a job is, its progress, and its journal on disk.

A ``Job`` is one ingest, re-index or delete on one index. The runner (``runner``) moves it
through its states::

    queued -> reading -> splitting -> embedding n/N -> writing -> ... [-> summarising n/N]
           -> done | failed | cancelled

and a job found unfinished after a restart is ``interrupted`` (its process died): the app offers
to resume it, which submits the files not saved yet. The ``JobJournal`` keeps every job as
``<workspace>/jobs/<id>.json`` (written atomically on each state change and batch saved, and
every few seconds while it runs), so any process can list the jobs of a workspace: the app shows
jobs the CLI runs, and what happened before a restart. Old finished jobs are pruned.

A job belongs to the process that runs it (``pid``, with the process's start time so a reused
pid is not taken for it). Another process cancels it by leaving ``<id>.cancel`` beside its
journal entry: the owner's cancel check looks for that file, then stops as after its own cancel.
With ``$RAGCORE_DATABASE_URL`` set, the journal is in the shared database instead
(``jobs_pg.open_journal``: a row per job, a heartbeat for "its process is alive", a cancel
column).
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from ..chats import now_iso
from .remaining import TimeLeft, job_time_left
from ..files import process_exists

ACTIVE = ("queued", "reading", "splitting", "embedding", "writing", "summarising")
FINISHED = ("done", "failed", "cancelled", "interrupted")
KINDS = ("ingest", "reindex", "delete")
KEEP_FINISHED = 100  # journals of finished jobs kept per workspace


@dataclass(slots=True)
class Job:
    """One ingest, re-index or delete on one index, with its progress and outcome."""

    kind: str  # "ingest", "reindex" or "delete"
    index: str
    files: list[str] = field(default_factory=list)  # ingest: the files, in order
    target: str = ""  # reindex/delete: the document id, file path or name
    chunk_size: int | None = None
    chunk_overlap: int | None = None
    id: str = field(default_factory=lambda: new_job_id())
    state: str = "queued"
    current: str = ""  # the file being worked on
    file_number: int = 0
    file_count: int = 0
    chunks_done: int = 0  # of the current file
    chunks_total: int = 0
    fraction: float = 0.0  # of the whole job, 0..1
    summaries_done: int = 0  # files summarised after the ingest (``summary_stage``)
    summaries_total: int = 0
    saved_files: list[str] = field(default_factory=list)  # files saved complete in the index
    commits: int = 0
    summary: str = ""  # the outcome in one line
    report: dict[str, Any] | None = None  # IngestReport.to_dict() of an ingest or re-index
    error: str = ""
    cancel_requested: bool = False
    resumed_from: str = ""
    index_display: str = ""  # the index's name as people typed it (``names.display_name``)
    index_uid: str = ""  # the index's record uid: a later index in the same folder differs
    index_deleted: bool = False  # its index was deleted since (``Workspace.delete_index``)
    origin: str = "app"  # who started it: "app" or "command line"
    waiting_for: str = ""  # while queued: the other process's job on the index it waits for
    pid: int = field(default_factory=os.getpid)
    pid_started: str = field(default_factory=lambda: process_started(os.getpid()))
    created: str = field(default_factory=now_iso)
    started: str = ""
    finished: str = ""
    started_at: float = 0.0  # time.time() when it started
    seconds: float = 0.0
    # The work in chunks across all its files and the rate it goes at (``estimate.py``):
    work_done: int = 0
    work_total: int = 0  # counted before embedding, refined as files are split
    work_low: int = 0  # the fewest and most it may come to (equal: counted exactly; 0: not
    work_high: int = 0  # known), ``JobWork.bounds``
    rate: float = 0.0  # this computer's measured chunks per second for the model (``rates``)
    estimated_seconds: float = 0.0  # the whole job's time as first estimated
    work_started_at: float = 0.0  # time.time() of its first chunk embedding
    work_base: int = 0  # chunks done by then
    work_updated_at: float = 0.0  # time.time() when work_done last grew
    rate_since: float = 0.0  # its own rate is measured from then (at most a minute ago)
    rate_base: int = 0  # chunks done then
    # The same in tokens of the text embedded (a model's time goes by them, ``remaining``): in
    # all, at work_started_at and at rate_since, and of a passage left (0: not known).
    tokens_done: int = 0
    tokens_base: int = 0
    rate_tokens_base: int = 0
    tokens_per_left: float = 0.0
    # Scanned pages (``ocr_work``): of the file OCR reads now, left in the whole job, and the
    # seconds a page takes (this computer's prior, then the job's own measure):
    ocr_done: int = 0
    ocr_total: int = 0
    ocr_left: int = 0
    ocr_page_seconds: float = 0.0

    @property
    def active(self) -> bool:
        return self.state in ACTIVE

    def title(self) -> str:
        """'Index 3 files into “Contrats été”', 'Re-index report.pdf in “docs”' ..."""
        shown = f"“{self.index_display or self.index}”"
        if self.index_deleted:
            shown = "the deleted index " + shown
        if self.kind == "ingest":
            what = _name(self.files[0]) if len(self.files) == 1 else f"{len(self.files)} files"
            return f"Index {what} into {shown}"
        verb = "Re-index" if self.kind == "reindex" else "Delete"
        return f"{verb} {_name(self.target)} in {shown}"

    def owner_alive(self) -> bool:
        """Whether the process that runs this job is still there (not one that reused its pid)."""
        return pid_alive(self.pid, self.pid_started)

    def time_left(self, now: float | None = None) -> TimeLeft | None:
        """Its time left (``remaining.job_time_left``: the one estimate the app and CLI show)."""
        return job_time_left(self, now)

    def remaining_seconds(self, now: float | None = None) -> float | None:
        """``time_left`` in seconds (OCR's alone while no embedding rate is known)."""
        left = job_time_left(self, now)
        return None if left is None else left.seconds

    def status(self) -> str:
        """The state in words: 'indexing passage 120 of about 900 so far · file 1 of 2 · about
        3 min left' (the passages of the whole job, counted before it started and refined as it
        goes: the upload's estimate and the result count the same passages). A person's words, not
        the stage's name: "embedding" is jargon to someone uploading files (issue 66)."""
        if self.state == "embedding" and self.work_total:
            words = f"indexing passage {self.work_done:,} of {self.counted()}"
        elif self.state == "embedding" and self.chunks_total:
            words = f"indexing passage {self.chunks_done:,} of about {self.chunks_total:,}"
        elif self.state == "reading" and self.ocr_total:
            words = f"reading scanned pages (OCR) {self.ocr_done} of {self.ocr_total}"
        elif self.state == "summarising":
            words = f"summarising {self.summaries_done}/{self.summaries_total}"
        elif self.state == "queued" and self.cancel_requested:
            words = "cancelling"
        elif self.state == "queued" and self.waiting_for:
            words = f"queued behind {self.waiting_for}"
        elif self.state in FINISHED and self.summary:
            words = f"{self.state}: {self.summary}"
        else:
            words = "indexing" if self.state == "embedding" else self.state
        if self.cancel_requested and self.active and self.state != "queued":
            words += " (stopping after this batch)"
        if self.active and self.file_count > 1 and self.file_number and self.state != "summarising":
            words += f" · file {self.file_number} of {self.file_count}"
        left = self.time_left()
        if left is not None:
            words += f" · {left.describe()}"
        return words

    def counted(self) -> str:
        """The passages in all: '229' once every file is counted exactly, else 'about 134 so
        far' (a count from a file's size, or projected: a walk saw 134 become 229)."""
        if self.work_low == self.work_high == self.work_total:
            return f"{self.work_total:,}"
        return f"about {self.work_total:,} so far"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Job:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


def new_job_id() -> str:
    """Sortable by creation time: '20261122-130501-123456789-1a2b'."""
    now = time.time_ns()  # one reading: seconds and nanoseconds of the same moment
    seconds, nanos = divmod(now, 10**9)
    return (time.strftime("%Y%m%d-%H%M%S-", time.localtime(seconds)) + f"{nanos:09d}-"
            + uuid.uuid4().hex[:4])


def _name(path: str) -> str:
    """A file's name from its path, id base ('upload:a/b.txt') or document id."""
    bare = path.removeprefix("upload:").split("#", 1)[0]
    return bare.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or path


def process_started(pid: int) -> str:
    """When process ``pid`` started, in clock ticks since boot ("" where /proc is missing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    fields_after_name = stat.rsplit(")", 1)[-1].split()
    return fields_after_name[19] if len(fields_after_name) > 19 else ""


def pid_alive(pid: int, started: str = "") -> bool:
    """Whether process ``pid`` runs; with ``started``, whether it is that same process (a
    restarted machine hands old pids to new processes)."""
    if pid == os.getpid():
        return not started or started == process_started(pid)
    if not process_exists(pid):
        return False
    now = process_started(pid) if started else ""
    return not now or now == started


class JobJournal:
    """Jobs as ``<folder>/<id>.json``: saved atomically, listed newest first, pruned."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def save(self, job: Job) -> None:
        """Write through ``.<id>.<pid>-<thread>.tmp`` and a rename: a killed writer's temporary
        file names its process, so ``sweep`` can tell it from a live writer's."""
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f".{job.id}.{os.getpid()}-{threading.get_ident()}.tmp"
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                json.dump(job.to_dict(), handle, indent=1, ensure_ascii=False)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.folder / f"{job.id}.json")
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def sweep(self) -> None:
        """Remove temporary files of journal writers whose process is gone, and cancel
        requests of jobs that are over."""
        if not self.folder.is_dir():
            return
        for tmp in self.folder.glob(".*.tmp"):
            owner = tmp.name.rsplit(".", 2)[-2].split("-")[0]
            if not owner.isdigit() or not pid_alive(int(owner)):
                tmp.unlink(missing_ok=True)
        for request in self.folder.glob("*.cancel"):
            job = self.load(request.stem)
            if job is None or not job.active:
                request.unlink(missing_ok=True)

    def load(self, job_id: str) -> Job | None:
        try:
            return Job.from_dict(json.loads((self.folder / f"{job_id}.json").read_text("utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def all(self) -> list[Job]:
        """Every job in the journal, newest first; an unreadable entry is skipped."""
        if not self.folder.is_dir():
            return []
        jobs = [self.load(p.stem) for p in self.folder.glob("*.json")]
        return sorted((j for j in jobs if j is not None), key=lambda j: j.id, reverse=True)

    def delete(self, job_id: str) -> None:
        (self.folder / f"{job_id}.json").unlink(missing_ok=True)
        self.clear_cancel(job_id)

    def request_cancel(self, job_id: str) -> None:
        """Ask the process running the job to stop it (``cancel_requested`` tells it)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{job_id}.cancel").touch()

    def cancel_requested(self, job_id: str) -> bool:
        return (self.folder / f"{job_id}.cancel").exists()

    def clear_cancel(self, job_id: str) -> None:
        (self.folder / f"{job_id}.cancel").unlink(missing_ok=True)

    def prune(self, keep: int = KEEP_FINISHED) -> None:
        """Forget the oldest finished jobs beyond ``keep``."""
        finished = [j for j in self.all() if not j.active]
        for job in finished[keep:]:
            self.delete(job.id)

    def owner_alive(self, job: Job) -> bool:
        """Whether the process running ``job`` is still there (its pid, on this machine)."""
        return job.owner_alive()

