"""Workspace integrity under random use (issue 18): a hypothesis state machine drives a real
workspace and its job runner through upload, ingest, cancel, resume, rename, delete-document,
delete-index, chat, crash and restart, and checks after every step that every chat and job
refers to a live index with the same uid (or says its index was deleted), that no deleted index
comes back, that an index keeps its folder and uid for life, and that identical files uploaded
again after a rename are reported unchanged.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.ingest.commits import Batching
from ragcore.workspace.jobs.journal import Job, JobJournal
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.jobs.resume import resumed_job
from ragcore.workspace.names import (
    delete_index,
    display_name,
    free_folder,
    index_gone,
    index_uid,
    rename_index,
    rename_problem,
    resolve_index,
    set_display_name,
)

NAMES = ("Alpha", "alpha", "Beta", "Gamma docs", "Alpha-2")
TEXTS = {f"note{i}.txt": " ".join(f"Note {i} sentence {j} tells of owls and bats number {j}."
                                  for j in range(40)) for i in range(3)}
CHUNK_SIZE = 128  # room for the metadata (file path and name) whatever the temporary folder
BATCHING = Batching(chunks=2, seconds=60.0, slice=2)
WAIT = 30
RUN = {"machines": 0, "checks": 0}  # how many machines ran, and steps checked (with one each)
PICK = st.integers(0, 99)  # which of the indexes, jobs, documents there are (drawn blind: the
#                            choices never depend on the run, so every example replays exactly)


def _pick(items, number: int):
    ordered = sorted(items)
    return ordered[number % len(ordered)]


class CancellingEmbedder(FakeEmbedder):
    """A fake embedder that, when armed, cancels the running jobs after its ``trip``-th call."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.trip = 0
        self.texts = 0  # texts embedded so far
        self.runner: JobRunner | None = None

    def embed_batch(self, texts):
        if self.trip and self.runner is not None:
            self.trip -= 1
            if not self.trip:
                for job in self.runner.active():
                    self.runner.cancel(job.id)
        self.texts += len(texts)
        return super().embed_batch(texts)



class WorkspaceMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="ragcore-states-"))
        self.sources = self.tmp / "sources"
        self.sources.mkdir()
        for name, text in TEXTS.items():
            (self.sources / name).write_text(text)
        self.embedder = CancellingEmbedder()
        self.live: dict[str, str] = {}  # folder -> uid of every index that should exist
        self.deleted: set[str] = set()  # uids of deleted indexes
        self.complete: dict[str, set[str]] = {}  # folder -> upload names indexed in full
        self.shown: dict[str, str] = {}  # folder -> the name it is shown by
        self.chunks: dict[tuple[str, str], int] = {}  # (folder, file) -> its chunks in full
        RUN["machines"] += 1
        self.restart()

    def teardown(self) -> None:
        self.runner.wait_idle(WAIT)
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- rules ---------------------------------------------------------------------------------

    @rule()
    def restart(self) -> None:
        """A new process: a new Workspace and a new job runner over the same folder."""
        self.ws = Workspace(self.tmp / "ws", embedder=self.embedder)
        self.runner = self.embedder.runner = JobRunner(self.ws.root, batching=BATCHING)

    @rule(typed=st.sampled_from(NAMES), file=st.sampled_from(sorted(TEXTS)),
          cancel_after=st.sampled_from([0, 0, 1, 2]))
    def upload(self, typed: str, file: str, cancel_after: int) -> None:
        """Upload a file into the index of that name (made first if new, as the app does) and
        ingest it as a job, cancelled after ``cancel_after`` embedding calls (0: never)."""
        shown = [f for f in self.live if self.shown[f].casefold() == typed.casefold()]
        folder = shown[0] if shown else free_folder(self.ws, typed)  # as the app does
        assert not shown or resolve_index(self.ws, typed) == folder, typed  # and the CLI
        if not shown:  # a new index, made as the app makes it
            self.ws.create_index(folder, chunk_size=CHUNK_SIZE, chunk_overlap=0)
            set_display_name(self.ws, folder, typed)
            self.live[folder], self.shown[folder] = self.ws.record(folder).uid, typed
        saved = self.ws.save_upload(folder, file, (self.sources / file).read_bytes())
        self.embedder.trip, before = cancel_after, self._saved_before(folder, [file])
        job = self.runner.wait(self.runner.ingest(self.ws, folder, [saved]).id, WAIT)
        self.embedder.trip = 0
        assert job.state in ("done", "cancelled"), job.status()
        self._note_done(job, folder, before)

    @precondition(lambda self: self.live)
    @rule(pick=PICK)
    def crash_while_ingesting(self, pick: int) -> None:
        """A process that died in the middle of an ingest left its job in the journal."""
        folder = _pick(self.live, pick)
        uploads = sorted(p for p in self.ws.upload_dir(folder).glob("*"))
        if uploads:
            JobJournal(self.ws.root / "jobs").save(Job(
                "ingest", folder, files=[str(uploads[0])], state="embedding", pid=2**22 - 7,
                pid_started="not-a-start-time", index_uid=self.live[folder]))

    @rule(pick=PICK)
    def resume(self, pick: int) -> None:
        finished = [j for j in self.runner.jobs() if not j.active and j.kind == "ingest"
                    and j.state in ("cancelled", "interrupted", "failed")]
        if not finished:
            return
        old = finished[pick % len(finished)]
        before = set(self.ws.index_names())
        names = [Path(f).name for f in old.files if Path(f).exists()]
        saved = self._saved_before(old.index, names) if old.index in self.live else {}
        try:
            job = self.runner.resume(self.ws, old.id)
        except WorkspaceError as exc:
            assert "was deleted: nothing to resume" in str(exc)
            assert old.index_deleted or index_gone(self.ws, old.index, old.index_uid)
        else:
            assert self.live.get(old.index) == (old.index_uid or self.live.get(old.index))
            job = self.runner.wait(job.id, WAIT)
            self.runner.forget(old.id)
            ingested = {Path(f).name for f in job.files}
            self._note_done(job, old.index, {n: k for n, k in saved.items() if n in ingested})
        assert set(self.ws.index_names()) <= before, "a resume made an index"

    @rule(pick=PICK)
    def index_deleted_while_a_resume_waits(self, pick: int) -> None:
        """Another session deletes the index between a Resume's check and its job's start:
        the job fails saying so, is shown as of a deleted index, and makes no index."""
        finished = [j for j in self.runner.jobs() if not j.active and j.kind == "ingest"
                    and j.state in ("cancelled", "interrupted", "failed") and not j.index_deleted
                    and j.index in self.live and j.index_uid == self.live[j.index]]
        if not finished:
            return
        old = finished[pick % len(finished)]
        job = resumed_job(self.ws, old)
        self.delete_index(sorted(self.live).index(old.index))
        job = self.runner.wait(self.runner.submit(self.ws, job).id, WAIT)
        assert job.state == "failed" and "was deleted" in job.error, job.status()
        assert job.index_deleted and not self.ws.has_index(old.index)

    @precondition(lambda self: self.live)
    @rule(pick=PICK, typed=st.sampled_from(NAMES + ("Delta", "Zeta notes")))
    def rename(self, pick: int, typed: str) -> None:
        folder = _pick(self.live, pick)
        if rename_problem(self.ws, folder, typed) is not None:
            return
        assert rename_index(self.ws, folder, typed) == folder
        assert display_name(self.ws, folder) == typed
        self.shown[folder] = typed
        # Identical files uploaded again are recognised: nothing is embedded again.
        names = sorted(self.complete.get(folder, ()))
        if names:
            paths = [self.ws.save_upload(folder, n, (self.sources / n).read_bytes())
                     for n in names]
            embedded = self.embedder.texts
            report = self.ws.ingest(folder, paths)
            assert report.unchanged == len(names), report.summary()
            assert self.embedder.texts == embedded, "unchanged files were embedded again"

    @precondition(lambda self: self.live)
    @rule(pick=PICK, row_pick=PICK)
    def delete_document(self, pick: int, row_pick: int) -> None:
        folder = _pick(self.live, pick)
        rows = self.ws.documents(folder)
        if rows:
            row = rows[row_pick % len(rows)]
            job = self.runner.wait(self.runner.delete(self.ws, folder, row["id_base"]).id, WAIT)
            assert job.state == "done", job.status()
            self.complete.get(folder, set()).discard(row["file"])

    @precondition(lambda self: self.live)
    @rule(pick=PICK)
    def delete_index(self, pick: int) -> None:
        folder = _pick(self.live, pick)
        delete_index(self.ws, folder)
        self.deleted.add(self.live.pop(folder))
        self.shown.pop(folder)
        self.chunks = {key: n for key, n in self.chunks.items() if key[0] != folder}
        self.complete.pop(folder, None)

    @precondition(lambda self: self.live)
    @rule(pick=PICK)
    def chat(self, pick: int) -> None:
        folder = _pick(self.live, pick)
        chat = SavedChat(index=folder, chat_mode="simple")
        chat.add_message("user", "What do owls do?")
        chat.add_message("assistant", "They hunt at night.")
        self.ws.save_chat(chat)

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def indexes_keep_their_folder_and_uid_and_none_comes_back(self) -> None:
        RUN["checks"] += 1
        assert set(self.ws.index_names()) == set(self.live)
        for folder, uid in self.live.items():
            assert index_uid(self.ws, folder) == uid
        assert not self.deleted & set(self.live.values())

    @invariant()
    def chats_and_jobs_point_at_live_indexes(self) -> None:
        for summary in self.ws.list_chats():
            chat = self.ws.load_chat(summary.id)
            assert self.live.get(chat.index) == chat.index_uid, "a chat of a missing index"
        for job in self.runner.jobs():
            if job.index_deleted:
                assert self.live.get(job.index) != job.index_uid or not job.index_uid
                continue
            assert job.index in self.live, f"{job.title()} points at a missing index"
            assert job.index_uid, f"{job.title()} does not know its index's uid"
            assert job.index_uid in ("", self.live[job.index]), job.title()

    @invariant()
    def documents_are_what_was_ingested(self) -> None:
        """A file ingested in full has all its chunks; any other is absent or marked partial;
        folders differ in more than case (one index per folder on every file system)."""
        assert len({f.casefold() for f in self.live}) == len(self.live)
        for folder in self.live:
            rows = {r["file"]: r for r in self.ws.documents(folder)}
            complete = self.complete.get(folder, set())
            assert {f for f, r in rows.items() if not r["incomplete"]} == complete, folder
            for name in complete:
                assert rows[name]["chunks"] == self.chunks[folder, name], (folder, name)

    def _saved_chunks(self, folder: str, name: str) -> int:
        rows = [r for r in self.ws.documents(folder) if r["file"] == name]
        return rows[0]["chunks"] if rows else 0

    def _saved_before(self, folder: str, names: list[str]) -> dict[str, int]:
        """The chunks of ``names`` saved before an ingestion (a file saved in part goes on
        after them; a file saved in full is unchanged)."""
        self.embedded_before = self.embedder.texts
        return {name: self._saved_chunks(folder, name) for name in names}

    def _note_done(self, job: Job, folder: str, saved: dict[str, int]) -> None:
        """After an ingest job done: its files are in full, each with as many chunks as the
        first time, and only the chunks not saved before were embedded."""
        assert job.index_uid == self.live[folder], job.title()
        for outcome in (job.report or {}).get("files", ()):  # only a deleted upload fails
            assert outcome["status"] != "failed" or not Path(outcome["path"]).exists(), outcome
        if job.state != "done":
            return
        for name in saved:
            chunks = self.chunks.setdefault((folder, name), self._saved_chunks(folder, name))
            assert self._saved_chunks(folder, name) == chunks, (folder, name)
        self.complete.setdefault(folder, set()).update(saved)
        embedded = self.embedder.texts - self.embedded_before
        assert embedded == sum(self.chunks[folder, n] - k for n, k in saved.items()), (
            f"{embedded} chunks embedded, {saved} saved before: {job.status()}")


SETTINGS = settings(max_examples=30, stateful_step_count=22, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def test_hundreds_of_random_steps_leave_nothing_dangling_and_nothing_deleted_back():
    RUN.update(machines=0, checks=0)
    run_state_machine_as_test(WorkspaceMachine, settings=SETTINGS)
    steps = RUN["checks"] - RUN["machines"]  # the invariants run once before the first step
    assert steps >= 500, f"only {steps} steps ran"
