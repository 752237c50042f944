"""``ragcore verify``: check an index completely (every file, node and vector) and say so.

Plain ``verify`` also embeds a sample of bounded size again with the index's own model
(``index.disk.vector_sample``), to find vectors moved between nodes; ``--embeddings`` embeds
every node. Which model that is gets resolved here, at the edge: the workspace's for a named
index, the packaged one a folder's manifest names, or none (and the output says why).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .index_commands import DEFAULT_INDEX

if TYPE_CHECKING:
    from ..embeddings.base import Embedder
    from ..index.disk.verify import VerifyReport
    from .context import CliContext


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    verify = commands.add_parser(
        "verify", parents=[common], help="check an index for damage (every file, node, vector)",
        description="Read the whole index and check it against the checksums recorded when it "
                    "was written, its records against one another, and a sample of its vectors "
                    "against their texts embedded again with the index's model (at most 16 "
                    "nodes, whatever the index's size). Exit status 0: sound; 1: damaged (the "
                    "message names the file and the nodes).")
    verify.add_argument("folder", nargs="?", metavar="FOLDER",
                        help="an index folder (default: the workspace index named by --index)")
    verify.add_argument("--index", "-i", default=None, metavar="NAME",
                        help=f"index name in the workspace (default: {DEFAULT_INDEX})")
    verify.add_argument("--embeddings", action="store_true",
                        help="embed every node's text again with the index's model and compare "
                             "it with its stored vector, not only a sample's (slow: as long as "
                             "embedding the index took)")
    verify.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace, context: CliContext) -> int:
    from ..errors import ConfigError
    from ..index.disk.verify import verify_index

    if args.folder and args.index:
        raise ConfigError("give an index folder or --index NAME, not both")
    if args.folder:
        path = Path(args.folder)
        retry = f"ragcore verify {shlex.quote(str(path))} --embeddings"
        embedder, why = (context.embedder, None) if context.embedder is not None \
            else _folder_embedder(path, strict=args.embeddings)
    else:
        workspace = context.workspace()
        name = args.index or DEFAULT_INDEX
        workspace.index_info(name)  # a clear error for an unknown name
        if workspace.in_database(name):
            raise ConfigError(f"index {name!r} lives in the database, which commits whole "
                              "transactions and checks its own pages: there is no folder to "
                              "verify")
        path = workspace.index_path(name)
        retry = f"ragcore verify --index {shlex.quote(name)} --embeddings"
        embedder, why = _loaded(lambda: workspace.embedder_for(name), strict=args.embeddings)
    report = verify_index(path, embedder=embedder, sample=not args.embeddings)
    checked = (f"{report.files} files, {report.bytes:,} bytes" if report.generation
               else "format version 1: no checksums recorded, structure only")
    sys.stdout.write(
        f"ok: {path} (revision {report.revision}, {report.generation or 'flat folder'}): "
        f"{report.documents} documents, {report.nodes} nodes; {checked}; records agree with "
        f"one another\n  vectors: {_vectors_line(report, why, retry)}\n"
    )
    for segment in report.approximate_search:
        sys.stdout.write(f"  vector segment {segment['segment']} ({segment['rows']:,} rows): "
                         f"{segment['note']}\n")
    return 0


def _folder_embedder(path: Path, *, strict: bool) -> tuple[Embedder | None, str | None]:
    """The packaged model a folder's manifest names (a folder records no other model's
    settings: a server's address, a local model's folder)."""
    from ..embeddings.packaged import VARIANTS, default_embedder
    from ..errors import ConfigError
    from ..index.disk.manifest import read_manifest

    name = (read_manifest(path).get("embed_model") or {}).get("name")
    if name not in VARIANTS:
        why = (f"the index was built with {name!r}, which a folder does not say how to load: "
               "verify it by name in its workspace (--index NAME), where its model is set")
        if strict:
            raise ConfigError(f"--embeddings needs the index's embedding model, but {why}")
        return None, why
    return _loaded(lambda: default_embedder(name), strict=strict)


def _loaded(load, *, strict: bool) -> tuple[Embedder | None, str | None]:
    """``load()``'s model; for a plain verify, a model that cannot be loaded is reported (why)
    rather than raised: the rest of the index can still be checked."""
    from ..errors import RagcoreError

    if strict:
        return load(), None
    try:
        return load(), None
    except RagcoreError as exc:
        return None, f"the index's embedding model could not be loaded ({exc})"


def _vectors_line(report: VerifyReport, why: str | None, retry: str) -> str:
    """What was done to the vectors, at what cost, and how to do what was not."""
    check = report.vectors
    if check is None or check.embedded == 0:
        reason = why or (check.skipped if check is not None else None) or "not checked"
        if check is not None and check.nodes == 0:
            return "none (the index has no nodes)"
        return f"not compared with their texts: {reason}; to compare every one: `{retry}`"
    done = f"{check.seconds:.1f} s with {check.model}"
    if check.embedded == check.nodes:
        return f"every node's text embedded again ({check.nodes:,}, {done}): each is its vector"
    return (f"re-embedded {check.embedded} of {check.nodes:,} nodes ({check.suspects} least "
            f"like their neighbours, {check.embedded - check.suspects} at random; {done}): each "
            f"is its vector; for every node: `{retry}`")
