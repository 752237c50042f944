"""Real database engines for the store tests, started once per test session on loopback ports
(``ragcore.testing.engines`` does the work; see there for how and as whom they run).

``chroma_server`` yields ``chroma+http://127.0.0.1:PORT``; ``postgres_url`` yields
``postgresql://ragcore@127.0.0.1:PORT/postgres`` (no password in it) and sets
``RAGCORE_PG_PASSWORD`` for the session, the way a deployment passes it. Each skips with the
reason only when its Python package is not installed; an engine that is installed but does not
start fails the tests that need it, with its log.
"""

from __future__ import annotations

import os
from typing import Iterator

import pytest

from ragcore.testing.engines import (
    PG_PASSWORD,
    EngineFailed,
    EngineMissing,
    chroma_server as start_chroma,
    free_port,
    postgres_server,
)

__all__ = ["chroma_server", "free_port", "postgres_url"]


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[str]:
    try:
        with start_chroma() as url:
            yield url
    except EngineMissing as exc:
        pytest.skip(str(exc))
    except EngineFailed as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    saved = os.environ.get("RAGCORE_PG_PASSWORD")
    os.environ["RAGCORE_PG_PASSWORD"] = PG_PASSWORD
    try:
        with postgres_server() as url:
            yield url
    except EngineMissing as exc:
        pytest.skip(str(exc))
    except EngineFailed as exc:
        pytest.fail(str(exc))
    finally:
        if saved is None:
            os.environ.pop("RAGCORE_PG_PASSWORD", None)
        else:
            os.environ["RAGCORE_PG_PASSWORD"] = saved
