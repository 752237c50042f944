"""How many threads a query's matrix products use: one, set here for the whole query path.

A query scores rows with a matrix-vector product, which is bound by memory bandwidth, not
arithmetic: one thread runs it at memory speed. numpy's BLAS (OpenBLAS) starts a thread per
core for it anyway, and on a busy machine those threads wait for cores other processes hold:
top-5 over 10k rows took 7.8 ms with OpenBLAS's two threads on the shared 2-core machine
against 1.6 ms with one (16.1 ms against 1.25 ms in issue 20). So ``SimpleVectorStore.query``
and the approximate indexes (``ragcore.stores.simple.ann``) run inside ``query_threads()``, which holds
BLAS and OpenMP (faiss) to ``QUERY_THREADS`` threads and restores the previous counts after.

Ingestion is not limited: embedding a batch is arithmetic-bound and does use every core (ONNX
Runtime's threads are its session's, ``ragcore.embeddings.onnx.embedder``). The limit is process-wide
(that is how BLAS works), so nested or concurrent queries share one: the first to enter sets
it, the last to leave restores it.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator

QUERY_THREADS = 1

_lock = threading.Lock()
_state: dict[str, Any] = {"depth": 0, "limiter": None, "controller": None}


@contextmanager
def query_threads(threads: int = QUERY_THREADS) -> Iterator[None]:
    """Run the block with BLAS and OpenMP held to ``threads`` threads (restored after)."""
    with _lock:
        if _state["depth"] == 0:
            limiter = _controller().limit(limits=threads, user_api=None)  # BLAS and OpenMP
            _state["limiter"] = limiter
        _state["depth"] += 1
    try:
        yield
    finally:
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                _state["limiter"].restore_original_limits()
                _state["limiter"] = None


def refresh_libraries() -> None:
    """Look again for thread pools: call after importing a library that brings its own
    (faiss loads OpenMP), so the next query limits it too."""
    with _lock:
        _state["controller"] = None


def _controller() -> Any:
    # Finding the loaded thread pools walks the process's shared libraries (about 1 ms): again
    # only when modules were imported since (scipy, torch or onnxruntime bring pools of their own).
    if _state["controller"] is None or _state.get("modules") != len(sys.modules):
        from threadpoolctl import ThreadpoolController

        _state["controller"] = ThreadpoolController()
        _state["modules"] = len(sys.modules)
    return _state["controller"]
