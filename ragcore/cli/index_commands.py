"""Index commands: ingest, retrieve, indexes, delete-doc, rename-index, delete-index, and
jobs / cancel-job (the workspace's background jobs, the app's and other terminals' too)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING, TextIO

from ..errors import WorkspaceError
from ..retrieval.retrievers import DEFAULT_MODE, RETRIEVAL_MODES
from ..workspace.ingest.commits import Batching
from ..present.format import counted
from .progress import ProgressBar
from .store_option import add_store_option, prepare_store
from .render import human_bytes, write_passages, write_report, write_table

if TYPE_CHECKING:
    from .context import CliContext

logger = logging.getLogger(__name__)

DEFAULT_INDEX = "default"
_BATCHING = Batching()
LONG_INGEST = 60.0  # seconds: an ingest estimated longer is announced with its estimate
MEASURE_ABOVE = 100  # chunks: a smaller ingest does not wait for the model to be timed


def note_model_load(index, retrieval: str = DEFAULT_MODE, err: TextIO | None = None) -> None:
    """Say on stderr that the embedding model is loading (seconds of silence otherwise)."""
    if retrieval == "keyword":  # BM25 alone never embeds the question
        return
    if getattr(index.embedder, "loaded", True) is False:
        (err or sys.stderr).write(f"Loading the embedding model {index.embed_model_name} ...\n")


def add_index_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index", "-i", default=DEFAULT_INDEX, metavar="NAME",
                        help=f"index name (default: {DEFAULT_INDEX})")


def add_retrieval_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--retrieval", default=DEFAULT_MODE, choices=RETRIEVAL_MODES,
        help="how passages are found: hybrid (meaning and words, fused: the default), "
             "similarity (meaning), mmr (meaning, diverse), keyword (BM25: exact words, "
             "acronyms)")


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    ingest = commands.add_parser(
        "ingest", parents=[common], help="add files or folders to an index",
        description="Read, split, embed and store files; changed files are updated, "
                    "unchanged ones skipped.")
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="files or folders (recursive)")
    ingest.add_argument("--index", "-i", default=DEFAULT_INDEX, metavar="NAME",
                        help=f"index name (default: {DEFAULT_INDEX}); a new one may have spaces "
                             "and accents, e.g. \"Contrats été\"")
    add_store_option(ingest)
    ingest.add_argument("--chunk-size", type=int, metavar="TOKENS",
                        help="tokens per chunk (default: the index's, else 200, which fits "
                             "the packaged model's 256-word-piece window)")
    ingest.add_argument("--chunk-overlap", type=int, metavar="TOKENS",
                        help="tokens shared by neighbouring chunks (default: the index's, else 20)")
    ingest.add_argument("--batch-chunks", type=int, default=_BATCHING.chunks, metavar="N",
                        help="save the index after every N new chunks, so Ctrl-C or a crash "
                             f"keeps the work done (default {_BATCHING.chunks})")
    ingest.add_argument("--batch-seconds", type=float, default=_BATCHING.seconds, metavar="S",
                        help="save the index at least every S seconds while it changes "
                             f"(default {_BATCHING.seconds:g})")
    ingest.add_argument("--queue", action="store_true",
                        help="store the files in the database and queue them for `ragcore "
                             "worker` processes (needs $RAGCORE_DATABASE_URL)")
    ingest.add_argument("--files-per-batch", type=int, default=4, metavar="N",
                        help="with --queue: files per batch, each committed once (default 4)")
    ingest.set_defaults(run=run_ingest)

    retrieve = commands.add_parser(
        "retrieve", parents=[common], help="show the passages most similar to a question")
    retrieve.add_argument("question")
    add_index_option(retrieve)
    retrieve.add_argument("-k", "--top-k", type=int, default=5, metavar="N",
                          help="how many passages (default 5)")
    add_retrieval_option(retrieve)
    retrieve.set_defaults(run=run_retrieve)

    indexes = commands.add_parser("indexes", parents=[common], help="list indexes and stats")
    indexes.set_defaults(run=run_indexes)

    delete_doc = commands.add_parser(
        "delete-doc", parents=[common], help="remove a document (or a file's documents)")
    delete_doc.add_argument("document", metavar="DOC_ID_OR_FILE",
                            help="a document id, a file path, or a file name")
    add_index_option(delete_doc)
    delete_doc.set_defaults(run=run_delete_doc)

    rename = commands.add_parser(
        "rename-index", parents=[common], help="rename an index",
        description="Rename an index; the new name may have spaces and accents (its folder "
                    "gets a safe form of it).")
    rename.add_argument("old", help="the index's name or folder")
    rename.add_argument("new", help="the new name, as people should see it")
    rename.set_defaults(run=run_rename_index)

    delete = commands.add_parser("delete-index", parents=[common],
                                 help="delete an index and its uploaded originals")
    delete.add_argument("name")
    delete.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    delete.set_defaults(run=run_delete_index)

    jobs = commands.add_parser("jobs", parents=[common],
                               help="list ingest, re-index and delete jobs (app and terminals)")
    jobs.add_argument("--index", "-i", metavar="NAME", help="only this index's jobs")
    jobs.set_defaults(run=run_jobs)
    cancel = commands.add_parser(
        "cancel-job", parents=[common], help="stop a running job, wherever it runs",
        description="Ask a job (the app's or another terminal's) to stop after its current "
                    "batch; what it saved stays in the index.")
    cancel.add_argument("job", metavar="JOB_ID", help="an id from `ragcore jobs`")
    cancel.set_defaults(run=run_cancel_job)


def run_ingest(args: argparse.Namespace, context: CliContext) -> int:
    """Ingest as a job (the app lists it too); Ctrl-C cancels it, keeping the saved batches."""
    from ..workspace.files import validate_name
    from ..workspace.ingest.inputs import scan_inputs, skipped_outcome
    from ..workspace.jobs.runner import JobRunner
    from ..workspace.names import clean_display, resolve_index, set_display_name
    from ..workspace.ingest.report import IngestReport

    if args.batch_chunks < 1 or args.batch_seconds <= 0:
        raise WorkspaceError("--batch-chunks must be at least 1 and --batch-seconds above 0")
    workspace = context.workspace()
    typed, args.index = args.index, resolve_index(workspace, args.index)
    validate_name(args.index)
    if args.queue:
        from .worker_command import queue_files

        return queue_files(args, context, typed)
    files, skipped = scan_inputs(args.paths)
    new = not workspace.has_index(args.index)
    prepare_store(workspace, args)
    if new and clean_display(typed) != args.index:  # "Contrats été": shown as typed
        workspace.create_index(args.index, chunk_size=args.chunk_size,
                               chunk_overlap=args.chunk_overlap, exist_ok=True)
        set_display_name(workspace, args.index, typed)
    runner = JobRunner(workspace.root, batching=Batching(args.batch_chunks, args.batch_seconds))
    bar = ProgressBar(sys.stderr)
    _say_how_long(workspace, args, files, bar)
    job = runner.ingest(workspace, args.index, files, chunk_size=args.chunk_size,
                        chunk_overlap=args.chunk_overlap, origin="command line", listener=bar)
    bar.follow(job)
    if bar.interactive:  # on a terminal; a log gets the one-line outcome only
        bar.note(f"{job.title()}: Ctrl-C, or Cancel in the app's sidebar, stops it after the "
                 "current batch and keeps what was saved.")
    try:
        _wait_or_cancel(runner, job.id, bar)
    finally:
        bar.close()
    if job.state == "failed":
        raise runner.exception(job.id) or WorkspaceError(job.error)
    report = IngestReport.from_dict(job.report or {"index": args.index})
    report.files[:0] = [skipped_outcome(error) for error in skipped]  # the job got files only
    shown = repr(args.index) if job.index_display in ("", args.index) \
        else f"“{job.index_display}” (folder {args.index})"
    sys.stdout.write(f"Index {shown} in {workspace.root}:\n")
    write_report(sys.stdout, report)
    if report.cancelled or job.state == "cancelled":
        sys.stderr.write(
            f"Cancelled. Index {args.index!r} keeps what was saved before "
            f"({counted(report.chunks, 'passage')} of this run, {counted(report.commits, 'save')}"
            "); run the same command again to finish: files already indexed are skipped.\n")
        return 130
    read = [f for f in report.files if f.status != "skipped"]
    return 1 if read and report.failed == len(read) else 0


def _say_how_long(workspace, args: argparse.Namespace, files: list, bar: ProgressBar) -> None:
    """Before a long ingest (over ``LONG_INGEST`` seconds on this computer), say how long."""
    from ..workspace.jobs.estimate import file_facts, forecast

    try:
        plan = forecast(workspace, args.index, [file_facts(f) for f in files],
                        chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap,
                        measure_above=MEASURE_ABOVE)
    except Exception as exc:  # noqa: BLE001 - the ingest says what is wrong, if anything is
        logger.info("no time estimate for the ingest: %s", exc)
        return
    if plan.seconds > LONG_INGEST:
        bar.note(f"Indexing {counted(len(files), 'file')} takes {plan.describe()}; Ctrl-C "
                 "stops it and keeps what was saved.")


def _wait_or_cancel(runner, job_id: str, bar: ProgressBar) -> None:
    """Wait for the job; the first Ctrl-C cancels it (saved batches stay), a second one quits.
    A cancel from another process (the app's Cancel button) is said when it is noticed."""
    interrupted = told = False
    waiting = ""
    while True:
        try:
            job = runner.wait(job_id, timeout=0.5)
            if job.waiting_for and waiting != job.waiting_for:
                waiting = job.waiting_for
                bar.note(f"Waiting for {waiting} to finish: one change to an index at a time.")
            if job.cancel_requested and not (told or interrupted):
                told = True
                bar.note("Cancelled from another process (the app): stopping after the "
                         "current batch; the batches saved so far are kept.")
            if not job.active:
                return
        except KeyboardInterrupt:
            if interrupted:
                raise
            interrupted = True
            runner.cancel(job_id)
            bar.note("Stopping after the current batch; the batches saved so far are kept "
                     "(Ctrl-C again to quit at once).")


def run_retrieve(args: argparse.Namespace, context: CliContext) -> int:
    if args.top_k < 1:
        raise WorkspaceError(f"-k ({args.top_k}) must be at least 1")
    index = context.workspace().load_index(args.index)
    if len(index) == 0:
        raise WorkspaceError(f"index {args.index!r} is empty: run `ragcore ingest PATH "
                             f"--index {args.index}` first")
    note_model_load(index, args.retrieval)
    retriever = index.as_retriever(similarity_top_k=args.top_k, mode=args.retrieval)
    nodes = retriever.retrieve(args.question)
    if not nodes:
        sys.stdout.write("No passages found.\n")
        return 0
    write_passages(sys.stdout, nodes)
    return 0


def run_indexes(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.names import display_name

    workspace = context.workspace()
    infos = workspace.list_indexes()
    if not infos:
        sys.stdout.write(f"No indexes in {workspace.root} yet: "
                         "run `ragcore ingest PATH --index NAME`.\n")
        return 0
    shown = {i.name: display_name(workspace, i.name) for i in infos}
    rows = [
        [i.name if shown[i.name] == i.name else f"{shown[i.name]} (folder {i.name})",
         str(i.files), str(i.documents), str(i.nodes),
         "?" if i.tokens is None else f"{i.tokens:,}", human_bytes(i.bytes_on_disk),
         i.embed_model, (i.updated or "")[:19]]
        for i in infos
    ]
    sys.stdout.write(f"Indexes in {workspace.root}:\n")
    write_table(sys.stdout, ["name", "files", "documents", "chunks", "tokens", "on disk",
                             "embedding model", "updated"], rows)
    return 0


def run_delete_doc(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.jobs.runner import JobRunner

    workspace = context.workspace()
    for job in JobRunner(workspace.root).active(args.index):  # it holds the index's lock
        sys.stderr.write(f"Waiting for {job.title()} (process {job.pid}) to finish: one "
                         "change to an index at a time.\n")
    removed = workspace.delete_document(args.index, args.document)
    sys.stdout.write(f"Removed {counted(len(removed), 'document')} from {args.index!r}:\n")
    for doc_id in removed:
        sys.stdout.write(f"  {doc_id}\n")
    return 0


def run_rename_index(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.names import clean_display, rename_index, resolve_index

    workspace = context.workspace()
    old = resolve_index(workspace, args.old)
    folder = rename_index(workspace, old, args.new)
    shown = clean_display(args.new)
    sys.stdout.write(f"Renamed index {old!r} to {shown!r}"
                     + (f" (folder {folder}).\n" if folder != shown else ".\n"))
    return 0


def run_delete_index(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.jobs.runner import JobRunner
    from ..workspace.names import chats_of, delete_index, display_name

    workspace = context.workspace()
    info = workspace.index_info(args.name)
    busy = JobRunner(workspace.root).active(args.name)
    if busy:
        raise WorkspaceError(f"{busy[0].title()} is running (process {busy[0].pid}): cancel it "
                             "in the app's sidebar or with Ctrl-C where it runs, then delete "
                             "the index")
    if not args.yes:
        chats = len(chats_of(workspace, args.name))
        answer = input(f"Delete index {display_name(workspace, args.name)!r} "
                       f"({counted(info.documents, 'document')}, "
                       f"{counted(info.nodes, 'passage')}), its uploads and its "
                       f"{counted(chats, 'saved chat')}? "
                       "[y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            sys.stdout.write("Nothing deleted.\n")
            return 1
    shown = display_name(workspace, args.name)
    chats = delete_index(workspace, args.name)
    sys.stdout.write(f"Deleted index {shown!r}"
                     + (f" and its {counted(chats, 'saved chat')}.\n" if chats else ".\n"))
    return 0


def run_jobs(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.jobs.runner import JobRunner
    from ..workspace.names import resolve_index

    workspace = context.workspace()
    index = resolve_index(workspace, args.index) if args.index else None
    jobs = JobRunner(workspace.root).jobs(index)
    from .worker_command import write_queued_jobs

    if not write_queued_jobs(context) and not jobs:
        sys.stdout.write(f"No jobs in {workspace.root}.\n")
    if not jobs:
        return 0
    rows = [[j.id, j.title(), j.status(), f"{j.origin} (process {j.pid})",
             (j.started or j.created)[:19]] for j in jobs]
    write_table(sys.stdout, ["id", "job", "state", "started from", "started"], rows)
    return 0


def run_cancel_job(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.jobs.runner import JobRunner

    runner = JobRunner(context.workspace().root)
    job = {j.id: j for j in runner.jobs()}.get(args.job)  # an ended process: interrupted
    if job is None:
        raise WorkspaceError(f"no job {args.job!r}: `ragcore jobs` lists them")
    if not runner.cancel(args.job):
        raise WorkspaceError(f"{job.title()} is not running ({job.state}): nothing to cancel")
    sys.stdout.write(f"Asked {job.title()} (process {job.pid}) to stop after its current "
                     "batch; what it saved stays in the index.\n")
    return 0
