"""``ragcore bench``: run the benchmarks of a source checkout (``python -m benchmarks``)."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigError

if TYPE_CHECKING:
    from .context import CliContext

GROUPS = ("pipeline", "search", "query", "app", "answers", "retrieval")


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    bench = commands.add_parser(
        "bench", parents=[common], help="run the benchmarks (a source checkout's benchmarks/)",
        description="Measure loading, splitting, embedding, persistence, search and query "
                    "overhead; prints a table and writes JSON to benchmarks/results/.")
    bench.add_argument("--quick", action="store_true", help="a smaller, faster run")
    bench.add_argument("--only", nargs="+", choices=GROUPS, metavar="GROUP",
                       help=f"run only these groups ({', '.join(GROUPS)})")
    bench.set_defaults(run=run_bench)


def benchmarks_root() -> Path:
    """The checkout holding ``benchmarks/`` beside the ``ragcore`` package."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "benchmarks" / "__main__.py").is_file():
        raise ConfigError(
            f"no benchmarks/ folder beside {root / 'ragcore'}: `ragcore bench` runs from a source "
            "checkout installed in editable mode (pip install -e .)"
        )
    return root


def run_bench(args: argparse.Namespace, context: CliContext) -> int:
    command = [sys.executable, "-m", "benchmarks"]
    if args.quick:
        command.append("--quick")
    if args.only:
        command += ["--only", *args.only]
    # The benchmarks print their own table; a subprocess keeps their peak memory separate.
    return subprocess.call(command, cwd=benchmarks_root())
