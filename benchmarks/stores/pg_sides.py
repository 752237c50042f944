"""The ``pg_index`` group's name and its timing of sides that take turns, shared by
``bench_pg_index`` (PgIndex against the embedded index) and ``pg_fulltext`` (Postgres full text
against BM25 from postings), so neither imports the other's internals."""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

GROUP = "pg_index"


def interleaved(sides: dict[str, Callable[[str], list[str]]],
                questions: list[str]) -> dict[str, tuple[list[float], list[list[str]]]]:
    """Each side's seconds and top ids per question, the sides taking turns to go first."""
    out: dict[str, tuple[list[float], list[list[str]]]] = {k: ([], []) for k in sides}
    names = list(sides)
    for n, question in enumerate(questions):
        for name in names if n % 2 == 0 else names[::-1]:
            started = time.perf_counter()
            ids = sides[name](question)
            out[name][0].append(time.perf_counter() - started)
            out[name][1].append(ids)
    return out


def p(samples: list[float], q: float) -> float:
    """The ``q`` quantile of ``samples`` in ms."""
    return 1000 * float(np.quantile(samples, q))
