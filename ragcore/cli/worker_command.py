"""``ragcore worker``: take ingest batches from the database's queue, on any machine.

Start any number, anywhere ``$RAGCORE_DATABASE_URL`` reaches: each takes one batch at a time
(``ragcore.workspace.jobs.queued_ingest``), ingests it with this machine's embedding model and
commits it once. ``ragcore ingest PATH --index NAME --queue`` queues the work; ``ragcore jobs``
shows it from any server. Ctrl-C stops the worker; its batch goes to another after its lease.
"""

from __future__ import annotations

import argparse
import sys

from .context import CliContext
from ..present.format import counted
from .render import write_table


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    worker = commands.add_parser(
        "worker", parents=[common], help="ingest queued batches (any number, any machine)",
        description="Take batches of queued files from the database ($RAGCORE_DATABASE_URL) "
                    "and ingest them, one commit per batch.")
    worker.add_argument("--until-empty", action="store_true",
                        help="stop when no batch is left (default: wait for more)")
    worker.add_argument("--lease", type=float, default=30.0, metavar="S",
                        help="seconds without a heartbeat after which another worker takes "
                             "this one's batch (default 30)")
    worker.set_defaults(run=run_worker)


def run_worker(args: argparse.Namespace, context: CliContext) -> int:
    from ..workspace.jobs.queued_ingest import work

    workspace = context.workspace()
    try:
        done = work(workspace, until_empty=args.until_empty, lease_seconds=args.lease)
    except KeyboardInterrupt:
        sys.stderr.write("Stopped; a batch under way is taken by another worker after its "
                         "lease.\n")
        return 130
    sys.stdout.write(f"{counted(done, 'batch', 'batches')} ingested.\n")
    return 0


def queue_files(args: argparse.Namespace, context: CliContext, typed: str) -> int:
    """``ragcore ingest --queue``: store the files in the database and queue their batches
    (a new index is shown as ``typed``, e.g. "Contrats été")."""
    from ..workspace.jobs.queued_ingest import queue_ingest
    from ..workspace.names import clean_display, set_display_name

    workspace = context.workspace()
    new = not workspace.has_index(args.index)
    job = queue_ingest(workspace, args.index, args.paths, files_per_batch=args.files_per_batch)
    if new and clean_display(typed) != args.index:
        set_display_name(workspace, args.index, typed)
    for error in job.skipped:
        sys.stderr.write(f"skipped: {error}\n")
    sys.stdout.write(f"Queued job {job.job}: {counted(len(job.files), 'file')} in "
                     f"{counted(job.batches, 'batch', 'batches')} for index {job.index!r}; "
                     "`ragcore worker` on any machine with $RAGCORE_DATABASE_URL ingests them, "
                     "`ragcore jobs` shows progress.\n")
    return 0


def write_queued_jobs(context: CliContext) -> bool:
    """The queued jobs' table (when the workspace has a database); whether there were any."""
    from ..workspace.jobs.queued_ingest import job_progress

    workspace = context.workspace()
    jobs = job_progress(workspace) if workspace.database is not None else []
    if jobs:
        rows = [[j["job"], j["index"], f"{j['done']}/{j['batches']}", str(j["running"]),
                 str(j["queued"]), str(j["failed"]),
                 "" if j["eta_seconds"] is None else f"{j['eta_seconds']:.0f} s"] for j in jobs]
        sys.stdout.write("Queued ingestion (workers):\n")
        write_table(sys.stdout, ["job", "index", "batches done", "running", "queued", "failed",
                                 "eta"], rows)
        for job in jobs:
            for key, error in job["errors"]:
                sys.stdout.write(f"  batch {key} failed: {error}\n")
            for name, reason in job["unreadable"]:
                sys.stdout.write(f"  job {job['job']}: {name} could not be read: {reason}\n")
    return bool(jobs)
