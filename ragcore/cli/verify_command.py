"""``ragcore verify``: check an index completely (every file, node and vector) and say so."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .index_commands import DEFAULT_INDEX

if TYPE_CHECKING:
    from .context import CliContext


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    verify = commands.add_parser(
        "verify", parents=[common], help="check an index for damage (every file, node, vector)",
        description="Read the whole index and check it against the checksums recorded when it "
                    "was written. Exit status 0: sound; 1: damaged (the message names the file).")
    verify.add_argument("folder", nargs="?", metavar="FOLDER",
                        help="an index folder (default: the workspace index named by --index)")
    verify.add_argument("--index", "-i", default=None, metavar="NAME",
                        help=f"index name in the workspace (default: {DEFAULT_INDEX})")
    verify.add_argument("--embeddings", action="store_true",
                        help="also embed every node's text again with the index's model and "
                             "compare it with its stored vector (slow: as long as embedding "
                             "the index took)")
    verify.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace, context: CliContext) -> int:
    from ..errors import ConfigError
    from ..index.disk.verify import verify_index

    if args.folder and args.index:
        raise ConfigError("give an index folder or --index NAME, not both")
    embedder = context.embedder
    if args.folder:
        path = Path(args.folder)
        if args.embeddings and embedder is None:
            raise ConfigError("--embeddings needs the index's embedding model: verify it by "
                              "name in its workspace (--index NAME), not by folder")
    else:
        workspace = context.workspace()
        name = args.index or DEFAULT_INDEX
        workspace.index_info(name)  # a clear error for an unknown name
        if workspace.in_database(name):
            raise ConfigError(f"index {name!r} lives in the database, which commits whole "
                              "transactions and checks its own pages: there is no folder to "
                              "verify")
        path = workspace.index_path(name)
        if args.embeddings:
            embedder = workspace.embedder_for(name)
    report = verify_index(path, embedder=embedder if args.embeddings else None)
    checked = (f"{report.files} files, {report.bytes:,} bytes" if report.generation
               else "format version 1: no checksums recorded, structure only")
    sys.stdout.write(
        f"ok: {path} (revision {report.revision}, {report.generation or 'flat folder'}): "
        f"{report.documents} documents, {report.nodes} nodes; {checked}; records agree with "
        f"one another{' and every vector with its text' if args.embeddings else ''}\n"
    )
    for segment in report.approximate_search:
        sys.stdout.write(f"  vector segment {segment['segment']} ({segment['rows']:,} rows): "
                         f"{segment['note']}\n")
    return 0
