"""``ragcore ingest --store LOCATION``: where a new index keeps its vectors.

The location (``chroma:PATH``, ``chroma+http://HOST:PORT``, ``postgresql://USER@HOST:PORT/DB``
or ``numpy``; see ``ragcore.stores.locations``) applies when the command creates the index. For
an index that exists, a different location is refused: its vectors are where it was created.
"""

from __future__ import annotations

import argparse

from ..errors import ConfigError, WorkspaceError
from ..stores.locations import parse_location


def add_store_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store", metavar="LOCATION",
        help="where a new index keeps its vectors: chroma:PATH (an embedded Chroma folder), "
             "chroma+http://HOST:PORT (a Chroma server), postgresql://USER@HOST:PORT/DB "
             "or any URL libpq takes, such as postgresql://USER@/DB?host=/SOCKET/FOLDER "
             "(Postgres with pgvector; password from $RAGCORE_PG_PASSWORD or $PGPASSWORD), "
             "numpy (default: the index folder), or database (the whole index in the "
             "Postgres of $RAGCORE_DATABASE_URL, shared by every server and worker)")


def prepare_store(workspace, args: argparse.Namespace) -> None:
    """Create the index over ``--store`` if it is new; refuse another store for an old one."""
    if args.store is None:
        return
    if args.store == "database":
        if not workspace.has_index(args.index):
            workspace.create_index(args.index, chunk_size=args.chunk_size,
                                   chunk_overlap=args.chunk_overlap, store="database")
        elif not workspace.in_database(args.index):
            raise WorkspaceError(f"index {args.index!r} lives in the workspace folder: leave "
                                 "out --store, or ingest into a new index")
        return
    wanted = parse_location(args.store)
    if not workspace.has_index(args.index):
        workspace.create_index(args.index, chunk_size=args.chunk_size,
                               chunk_overlap=args.chunk_overlap, store=args.store, exist_ok=True)
        return
    recorded = workspace.record(args.index).store
    if _as_read(recorded) != str(wanted or ""):
        raise WorkspaceError(
            f"index {args.index!r} keeps its vectors in {recorded or 'its index folder'}, not "
            f"{wanted or 'the index folder'}: leave out --store, or ingest into a new index")


def _as_read(recorded: str) -> str:
    """A recorded location as ``parse_location`` writes it now, so one URL written two ways
    (query order, ``%2F`` or ``?host=``) is one store; else as recorded ("database", or a
    form an older ragcore wrote)."""
    try:
        return str(parse_location(recorded) or "")
    except ConfigError:
        return recorded
