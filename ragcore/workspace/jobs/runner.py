"""Run ingest, re-index and delete jobs in background threads: one queue per index.

``runner_for(root)`` is the process's one ``JobRunner`` for a workspace (a module-level
singleton, so in the Streamlit server it outlives every script run, rerun and closed tab).
Jobs on one index run in the order they were submitted, by one worker thread per busy index;
jobs on different indexes run side by side (the index write locks of ``Workspace`` keep a CLI
process and the app in order too). A job's progress is the ``Job`` object itself, updated
from the ingestion's progress events and written to the journal (``jobs.JobJournal``).

Cancel is cooperative: the ingestion asks between slices of chunks and inside the embedding
progress callback, saves the finished batches and stops; a queued job is cancelled at once.
``cancel`` works across processes too (the app cancelling ``ragcore ingest``): it leaves a
request in the journal that the owner's cancel check picks up within ``CANCEL_POLL`` seconds.
A failure ends its own job only (the next job of that index runs). Jobs whose process died
show as ``interrupted``; ``resume`` submits the files they had not saved yet.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ..chats import now_iso
from ..ingest.commits import Batching
from .estimate import JobWork, record_rate, start_work
from .journal import Job
from .journal_pg import open_journal
from ..names import display_name, index_gone, index_uid, require_same
from ..ingest.report import IngestProgress, IngestReport
from .resume import resumed_job
from ..ingest.summary_stage import StageOutcome, summarise_new_files
from ...present.format import counted

if TYPE_CHECKING:
    from ..workspace import Workspace

logger = logging.getLogger(__name__)

SAVE_EVERY = 2.0  # seconds between journal writes while a job runs
CANCEL_POLL = 0.5  # seconds between looks for a cancel request from another process
_STAGES = ("reading", "splitting", "embedding", "saving")


class JobRunner:
    """Background jobs of one workspace; thread-safe; see the module docstring."""

    def __init__(self, root: Path, *, batching: Batching | None = None) -> None:
        self.root = Path(root)
        self.journal = open_journal(self.root)  # files, or rows of $RAGCORE_DATABASE_URL
        self.batching = batching
        self._lock = threading.Condition()
        self._jobs: dict[str, Job] = {}
        self._cancel: dict[str, threading.Event] = {}
        self._queues: dict[str, deque[tuple[Job, Workspace]]] = {}
        self._workers: dict[str, threading.Thread] = {}
        self._saved_at: dict[str, float] = {}
        self._listeners: dict[str, Callable[[IngestProgress], None]] = {}
        self._errors: dict[str, BaseException] = {}
        self._mark_interrupted()

    # -- submitting ----------------------------------------------------------------------------

    def ingest(self, ws: Workspace, index: str, files: list[str | Path], *,
               chunk_size: int | None = None, chunk_overlap: int | None = None,
               resumed_from: str = "", origin: str = "app",
               listener: Callable[[IngestProgress], None] | None = None) -> Job:
        """Queue an ingestion of ``files`` into ``index``; returns the queued job.

        ``listener`` also gets every progress event, in the job's thread (the CLI's bar)."""
        paths = [str(f) for f in files]
        job = Job("ingest", index, files=paths, chunk_size=chunk_size,
                  chunk_overlap=chunk_overlap, file_count=len(paths), resumed_from=resumed_from,
                  origin=origin)
        if listener is not None:
            self._listeners[job.id] = listener
        return self.submit(ws, job)

    def reindex(self, ws: Workspace, index: str, target: str) -> Job:
        return self.submit(ws, Job("reindex", index, target=target, file_count=1))

    def delete(self, ws: Workspace, index: str, target: str) -> Job:
        return self.submit(ws, Job("delete", index, target=target, file_count=1))

    def submit(self, ws: Workspace, job: Job) -> Job:
        job.index_display = job.index_display or display_name(ws, job.index)
        job.index_uid = job.index_uid or index_uid(ws, job.index)
        with self._lock:
            self._jobs[job.id] = job
            self._cancel[job.id] = threading.Event()
            self._queues.setdefault(job.index, deque()).append((job, ws))
            self._save(job)
            worker = self._workers.get(job.index)
            if worker is None or not worker.is_alive():
                worker = threading.Thread(target=self._work, args=(job.index,), daemon=True,
                                          name=f"ragcore-jobs-{job.index}")
                self._workers[job.index] = worker
                worker.start()
        return job

    def cancel(self, job_id: str) -> bool:
        """Ask a job to stop; a queued one of this process is cancelled at once. A job another
        process runs gets a request in the journal (False: no such job running)."""
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None:
                return self._cancel_elsewhere(job_id)
            if not job.active:
                return False
            job.cancel_requested = True
            self._cancel[job_id].set()
            if job.state == "queued":
                queue = self._queues.get(job.index, deque())
                for entry in list(queue):
                    if entry[0] is job:
                        queue.remove(entry)
                        self._finish(job, "cancelled", "cancelled before it started")
            self._save(job)
            return True

    def _cancel_elsewhere(self, job_id: str) -> bool:
        job = self.journal.load(job_id)
        if job is None or not job.active or not self.journal.owner_alive(job):
            return False
        self.journal.request_cancel(job_id)
        return True

    def resume(self, ws: Workspace, job_id: str) -> Job:
        """Submit again what an interrupted, failed or cancelled job had not saved."""
        old = self.get(job_id)
        if old is None or old.active:
            raise ValueError(f"job {job_id} is not a finished job of {self.root}")
        return self.submit(ws, resumed_job(ws, old))

    def forget(self, job_id: str) -> None:
        """Remove a finished job from the list and the journal."""
        with self._lock:
            job = self.get(job_id)
            if job is not None and not job.active:
                self._jobs.pop(job_id, None)
                self.journal.delete(job_id)

    # -- looking -------------------------------------------------------------------------------

    def exception(self, job_id: str) -> BaseException | None:
        """What made a job of this process fail (None if it did not)."""
        return self._errors.get(job_id)

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id) or self.journal.load(job_id)

    def jobs(self, index: str | None = None) -> list[Job]:
        """This process's jobs and the journal's (other processes, earlier runs), newest first."""
        with self._lock:
            mine = dict(self._jobs)
        journal = self.journal.all()
        for job in journal:  # the index of a job of this process was deleted since
            if job.index_deleted and job.id in mine:
                mine[job.id].index_deleted = True
        listed = list(mine.values()) + [j for j in journal if j.id not in mine]
        listed = [self._checked(j) for j in listed if index is None or j.index == index]
        return sorted(listed, key=lambda j: j.id, reverse=True)

    def active(self, index: str | None = None) -> list[Job]:
        return [j for j in self.jobs(index) if j.active]

    def wait(self, job_id: str, timeout: float | None = None) -> Job:
        """Block until the job of this process is finished (or ``timeout`` passed)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            job = self._jobs[job_id]
            while job.active:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break
                self._lock.wait(timeout=left if left is not None else 1.0)
            return job

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until no job of this process is queued or running; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while any(j.active for j in self._jobs.values()):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._lock.wait(timeout=left if left is not None else 1.0)
        return True

    def stray_uploads(self, ws: Workspace, index: str, indexed: set[str]) -> list[Path]:
        """Uploaded originals of ``index`` that no document comes from and no job is working
        on: uploads whose ingestion failed, was cancelled or died. ``indexed`` holds the id
        bases of the index's files (``upload:<name>`` for uploads)."""
        from ..handle import UPLOAD_PREFIX

        folder = ws.upload_dir(index)
        if not folder.is_dir():
            return []
        busy = {f for j in self.active(index) for f in j.files}
        return sorted(
            p for p in folder.rglob("*")
            if p.is_file() and not p.name.startswith(".") and str(p) not in busy
            and UPLOAD_PREFIX + p.relative_to(folder).as_posix() not in indexed
        )

    # -- running -------------------------------------------------------------------------------

    def _work(self, index: str) -> None:
        while True:
            with self._lock:
                queue = self._queues.get(index)
                if not queue:
                    self._workers.pop(index, None)
                    return
                job, ws = queue.popleft()
            self._run(job, ws)

    def _run(self, job: Job, ws: Workspace) -> None:
        cancel = self._cancel_check(job)
        self._wait_for_other_processes(job, cancel)
        with self._lock:
            job.started, job.started_at = now_iso(), time.time()
            self._save(job)
        try:
            if cancel():  # asked (maybe by another process) while it waited in the queue
                state, summary, report = "cancelled", "cancelled before it started", None
            else:
                state, summary, report = self._execute(job, ws, cancel)
        except Exception as exc:  # noqa: BLE001 - a failed job must not stop the next ones
            logger.warning("job %s (%s) failed: %s", job.id, job.title(), exc, exc_info=True)
            job.error = str(exc)
            self._errors[job.id] = exc
            state, summary, report = "failed", _explain(exc), None
            # its index was deleted after it was queued: shown so, never resumed
            job.index_deleted = bool(job.index_uid) and index_gone(ws, job.index, job.index_uid)
        record_rate(ws, job)  # this computer's rate, for the next estimate
        if state != "failed":
            _warm_stats(ws, job.index)
        with self._lock:
            job.report = report.to_dict() if report is not None else None
            if report is not None:
                job.commits = report.commits
            self._finish(job, state, summary)

    def _execute(self, job: Job, ws: Workspace,
                 cancel: Callable[[], bool]) -> tuple[str, str, IngestReport | None]:
        progress = self._progress_of(job, ws)
        if job.kind != "ingest":
            require_same(ws, job.index, job.index_uid, job.index_display)
        if job.kind == "delete":
            self._set(job, state="writing")
            removed = ws.delete_document(job.index, job.target)
            return "done", f"removed {counted(len(removed), 'document')}", None
        if job.kind == "reindex":
            report = ws.reindex_document(job.index, job.target, progress=progress, cancel=cancel)
        else:
            report = ws.ingest(job.index, job.files, chunk_size=job.chunk_size,
                               chunk_overlap=job.chunk_overlap, progress=progress,
                               cancel=cancel, batching=self.batching,
                               on_commit=lambda saved: self._saved(job, saved),
                               uid=job.index_uid if job.index_uid or job.resumed_from else None)
            job.index_uid = job.index_uid or index_uid(ws, job.index)
        stage = StageOutcome() if report.cancelled else summarise_new_files(  # issue 13
            ws, job.index, cancel=cancel, progress=lambda done, total: self._set(
                job, state="summarising", summaries_done=done, summaries_total=total))
        state = "cancelled" if report.cancelled or stage.cancelled else "done"
        return state, report.summary() + stage.note, report

    def _saved(self, job: Job, saved: list[str]) -> None:
        """A batch was saved: a file still going on is embedding again (its next slice sends
        no progress until that slice is embedded, seconds later)."""
        going_on = job.state == "writing" and 0 < job.chunks_done < job.chunks_total
        self._set(job, saved_files=saved, save=True,
                  **({"state": "embedding"} if going_on else {}))

    def _wait_for_other_processes(self, job: Job, cancel: Callable[[], bool]) -> None:
        """Stay queued, saying behind what, while another process runs an earlier job on the
        same index (the index's write lock would hold this one anyway, but unseen and not
        cancellable); ids sort by creation time, so two processes never wait for each other."""
        while not cancel():
            ahead = [j for j in self.journal.all() if j.index == job.index and j.active
                     and j.id < job.id and j.id not in self._jobs and self.journal.owner_alive(j)]
            if not ahead:
                break
            self._set(job, waiting_for=f"{ahead[-1].title()} (process {ahead[-1].pid})")
            time.sleep(CANCEL_POLL)
        if job.waiting_for:
            self._set(job, waiting_for="", save=True)

    def _cancel_check(self, job: Job) -> Callable[[], bool]:
        """The job's cancel callback: its own event, or a request another process left in the
        journal (looked for at most every ``CANCEL_POLL`` seconds; it is asked very often)."""
        event = self._cancel[job.id]
        looked = [0.0]

        def cancelled() -> bool:
            if event.is_set():
                return True
            if time.monotonic() - looked[0] < CANCEL_POLL:
                return False
            looked[0] = time.monotonic()
            if not self.journal.cancel_requested(job.id):
                return False
            event.set()
            self._set(job, cancel_requested=True, save=True)
            return True

        return cancelled

    def _progress_of(self, job: Job, ws: Workspace) -> Callable[[IngestProgress], None]:
        listener = self._listeners.pop(job.id, None)
        work: list[JobWork] = []  # the job's files counted at its first event, in its thread

        def on_progress(event: IngestProgress) -> None:
            if not work:
                work.append(start_work(ws, job) if job.kind == "ingest" else JobWork([], []))
            changes: dict[str, Any] = {"fraction": event.overall,
                                       "file_number": event.file_number,
                                       "file_count": event.file_count}
            if event.stage in _STAGES:
                changes["state"] = "writing" if event.stage == "saving" else event.stage
            if event.path:
                changes["current"] = event.path
            if event.chunks_total:  # kept after the file (the journal tells how far it got)
                changes["chunks_done"], changes["chunks_total"] = (
                    event.chunks_done, event.chunks_total)
            changes.update(work[0].observe(event))  # the bar: chunks done of all the job's
            self._set(job, **changes)
            if listener is not None:  # after: the CLI's bar shows the job's estimate
                listener(event)

        return on_progress

    def _set(self, job: Job, *, save: bool = False, **changes: Any) -> None:
        with self._lock:
            moved = "state" in changes and changes["state"] != job.state
            for key, value in changes.items():
                setattr(job, key, value)
            if save or moved or time.monotonic() - self._saved_at.get(job.id, 0) > SAVE_EVERY:
                self._save(job)

    def _finish(self, job: Job, state: str, summary: str) -> None:
        """Under the lock: the job's last state, journalled; waiters wake up."""
        job.state, job.summary, job.finished = state, summary, now_iso()
        self.journal.clear_cancel(job.id)
        if state == "done":
            job.fraction = 1.0
        if job.started_at:
            job.seconds = time.time() - job.started_at
        self._save(job)
        self._lock.notify_all()
        try:
            self.journal.prune()
        except OSError as exc:
            logger.info("could not prune the job journal: %s", exc)

    def _save(self, job: Job) -> None:
        try:
            self.journal.save(job)
            self._saved_at[job.id] = time.monotonic()
        except OSError as exc:  # a full disk must not stop the job; its state stays in memory
            logger.warning("could not write the journal of job %s: %s", job.id, exc)

    def _mark_interrupted(self) -> None:
        try:
            self.journal.sweep()
        except OSError as exc:
            logger.info("could not sweep the job journal: %s", exc)
        for job in self.journal.all():
            self._checked(job)

    def _checked(self, job: Job) -> Job:
        """A job the journal says is running: ``interrupted`` if its process is gone; marked
        as stopping if another process asked it to (its owner may not have said so yet)."""
        if not job.active or job.id in self._jobs:
            return job
        if not self.journal.owner_alive(job):
            job.state = "interrupted"
            saved = len(job.saved_files)
            job.summary = (f"stopped when its process ended; {saved} of "
                           f"{counted(len(job.files), 'file')} saved" if job.kind == "ingest"
                           else "stopped when its process ended")
            self._save(job)  # once: from now on the journal says so
            self.journal.clear_cancel(job.id)
        elif self.journal.cancel_requested(job.id):
            job.cancel_requested = True
        return job


def _explain(exc: BaseException) -> str:
    from ...errors import RagcoreError

    return str(exc) if isinstance(exc, RagcoreError) else f"{type(exc).__name__}: {exc}"


def _warm_stats(ws: Workspace, index: str) -> None:
    """Count the changed index's files and tokens now, in the job's thread, so pages listing
    indexes find the counts cached for this revision instead of counting on the spot."""
    try:
        if ws.has_index(index):
            ws.index_info(index)
    except Exception as exc:  # noqa: BLE001 - the listing counts (and reports) it then
        logger.info("could not count index %s after its job: %s", index, exc)


_runners: dict[str, JobRunner] = {}
_runners_guard = threading.Lock()


def runner_for(root: str | Path) -> JobRunner:
    """This process's job runner for the workspace at ``root`` (made on first use)."""
    key = str(Path(root).expanduser().resolve())
    with _runners_guard:
        runner = _runners.get(key)
        if runner is None:
            runner = _runners[key] = JobRunner(Path(key))
        return runner
