"""The ``ragcore`` command line: a thin shell over the workspace, query and chat engines.

Each command group lives in its own module (``index_commands``: ingest, retrieve, indexes,
delete-doc, rename-index, delete-index; ``query_command``; ``serve_command``: serve, the warm
process ``ragcore query`` asks; ``chat_command``; ``bench_command``;
``eval_command``; ``users_command``: users, share)
and registers its sub-parser here. Every behaviour is in ragcore; this package parses arguments,
prints, and turns a ``RagcoreError`` into a readable message on stderr and exit status 1.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Sequence

from ..embeddings.base import Embedder
from ..errors import RagcoreError
from .context import CliContext

EMBEDDER_ENV = "RAGCORE_EMBEDDER"
EXAMPLES = """examples:
  ragcore ingest ~/papers --index papers
  ragcore retrieve "What is a zero trust architecture?" --index papers -k 5
  ragcore query "Summarize the main risks" --index papers --mode tree_summarize --trace
  ragcore query "What is a PDP?" --index papers --retrieval hybrid
  ragcore serve --index papers    # keeps the models loaded; `ragcore query` then asks it
  ragcore query "..." --index papers --llm ollama:llama3.1
  ragcore query "..." --index papers --llm openai:MODEL --base-url http://127.0.0.1:8000/v1
  ragcore chat --index papers --mode condense_plus_context
"""


def build_parser() -> argparse.ArgumentParser:
    from . import (
        bench_command, chat_command, eval_command, index_commands, query_command, serve_command,
        users_command, verify_command, worker_command,
    )

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--workspace", metavar="DIR", default=argparse.SUPPRESS,
        help="workspace folder (default: $RAGCORE_WORKSPACE or ./workspace)",
    )
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS,
                        help="log what ragcore does to stderr")
    parser = argparse.ArgumentParser(
        prog="ragcore", parents=[common],
        description="Index documents and ask questions about them, offline by default.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (index_commands, query_command, serve_command, chat_command, bench_command,
                   verify_command, eval_command, users_command, worker_command):
        module.add_parsers(commands, common)
    return parser


def _embedder_from_env() -> Embedder | None:
    # For demos and tests without the model: RAGCORE_EMBEDDER=fake uses the hashing embedder.
    choice = os.environ.get(EMBEDDER_ENV, "").strip().lower()
    if not choice:
        return None
    if choice == "fake":
        from ..embeddings.fake import FakeEmbedder

        return FakeEmbedder()
    raise RagcoreError(f"{EMBEDDER_ENV}={choice!r} is not understood: unset it or use 'fake'")


def _silence_stdout() -> None:
    # Python's recipe for a closed pipe: point stdout at devnull so the exit flush is quiet.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        logging.getLogger(__name__).debug("stdout cannot be redirected after a broken pipe")


def _find_index_by_shown_name(args: argparse.Namespace, context: CliContext) -> None:
    """``--index "Contrats été"`` (or delete-index's name): the folder of the index shown so,
    also after a rename (folders never move); a name no index has is left as typed."""
    for option in ("index", "name"):
        typed = getattr(args, option, None)
        if isinstance(typed, str) and typed:
            from ..workspace.names import existing_index

            setattr(args, option, existing_index(context.workspace(), typed) or typed)


def main(argv: Sequence[str] | None = None, *, embedder: Embedder | None = None) -> int:
    """Run one ``ragcore`` command; returns the exit status (0 ok, 1 error, 2 usage, 130 ^C)."""
    parser = build_parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    if getattr(args, "verbose", False):
        logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                            format="%(levelname)s %(name)s: %(message)s")
    try:
        context = CliContext(getattr(args, "workspace", None), embedder or _embedder_from_env())
        _find_index_by_shown_name(args, context)
        return int(args.run(args, context) or 0)
    except RagcoreError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except OSError as exc:
        # A disk full, a permission denied: the system's message names the file and the cause.
        if isinstance(exc, BrokenPipeError):  # `ragcore retrieve ... | head` closed the pipe
            _silence_stdout()
            return 0
        sys.stderr.write(f"error: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
