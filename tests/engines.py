"""Real database engines for the store tests, started once per test session on loopback ports.

``chroma_server``: ``chroma run`` (from the installed chromadb) on a free 127.0.0.1 port, its
data in a temporary folder; yields ``chroma+http://127.0.0.1:PORT``.

``postgres_url``: Postgres 16 with pgvector from the ``pgserver`` wheel's binaries (or from
``$RAGCORE_PG_BINDIR``), initialised in a temporary folder with password authentication and run
on a free 127.0.0.1 port; yields ``postgresql://ragcore@127.0.0.1:PORT/postgres`` (no password
in it) and sets ``RAGCORE_PG_PASSWORD`` for the session, the way a deployment passes it. Postgres
refuses to run as root, so under root (CI, containers) it runs as the unprivileged ``nobody``,
from a copy of the binaries in the temporary folder (the checkout may be under /root).

Each fixture skips with the reason only when its Python package is not installed; an engine that
is installed but does not start fails the tests that need it, with its log.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

PG_PASSWORD = "ragcore-test-secret"
START_TIMEOUT = 90.0  # seconds; a loaded 2-core CI machine can be slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _stop(process: subprocess.Popen, sig: int = signal.SIGTERM) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _log(path: Path) -> str:
    return path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[str]:
    pytest.importorskip("chromadb", reason="chromadb is not installed: pip install '.[chroma]'")
    chroma = Path(sys.executable).parent / "chroma"
    folder = Path(tempfile.mkdtemp(prefix="ragcore-chroma-"))
    port, log = free_port(), folder / "server.log"
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(chroma), "run", "--path", str(folder / "data"), "--host", "127.0.0.1",
             "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, env=env,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=2)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"the Chroma server did not start on port {port}:\n{_log(log)}")
                time.sleep(0.2)
        yield f"chroma+http://127.0.0.1:{port}"
    finally:
        _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def pg_bindir() -> Path | None:
    """Where initdb and postgres (with pgvector) are: $RAGCORE_PG_BINDIR, else pgserver's."""
    if os.environ.get("RAGCORE_PG_BINDIR"):
        return Path(os.environ["RAGCORE_PG_BINDIR"])
    try:
        import pgserver
    except ImportError:
        return None
    bindir = Path(pgserver.__file__).parent / "pginstall" / "bin"
    return bindir if (bindir / "postgres").exists() else None


def _as_user() -> dict:
    """Popen arguments that drop root for Postgres (it refuses to run as root)."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="psycopg is not installed: pip install '.[postgres]'")
    bindir = pg_bindir()
    if bindir is None:
        pytest.skip("no Postgres with pgvector: pip install pgserver, or set RAGCORE_PG_BINDIR")
    folder = Path(tempfile.mkdtemp(prefix="ragcore-pg-"))
    data, log, pwfile = folder / "data", folder / "postgres.log", folder / "pwfile"
    pwfile.write_text(PG_PASSWORD + "\n")
    user = _as_user()
    if user:
        os.chmod(folder, 0o755)
        for path in (folder, pwfile):
            os.chown(path, user["user"], user["group"])
        # The checkout may sit in a folder "nobody" cannot enter (/root): run a copy from /tmp.
        # The binaries find their libraries at $ORIGIN/../../../pgserver.libs: keep the layout.
        copy = folder / "pg" / "pgserver" / "pginstall"
        shutil.copytree(bindir.parent, copy, symlinks=True)
        libs = bindir.parents[2] / "pgserver.libs"
        if libs.is_dir():
            shutil.copytree(libs, folder / "pg" / "pgserver.libs", symlinks=True)
        bindir = copy / "bin"
    init = subprocess.run(
        [str(bindir / "initdb"), "-D", str(data), "-U", "ragcore", f"--pwfile={pwfile}",
         "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"],
        capture_output=True, text=True, **user,
    )
    if init.returncode:
        pytest.fail(f"initdb failed:\n{init.stdout[-2000:]}\n{init.stderr[-2000:]}")
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(bindir / "postgres"), "-D", str(data), "-p", str(port),
             "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={data}",
             "-c", "fsync=off", "-c", "max_connections=50"],
            stdout=out, stderr=subprocess.STDOUT, **user,
        )
    url = f"postgresql://ragcore@127.0.0.1:{port}/postgres"
    saved = os.environ.get("RAGCORE_PG_PASSWORD")
    os.environ["RAGCORE_PG_PASSWORD"] = PG_PASSWORD
    try:
        _wait_for_postgres(url, process, log)
        yield url
    finally:
        _stop(process, signal.SIGINT)  # SIGINT: Postgres's fast shutdown
        if saved is None:
            os.environ.pop("RAGCORE_PG_PASSWORD", None)
        else:
            os.environ["RAGCORE_PG_PASSWORD"] = saved
        shutil.rmtree(folder, ignore_errors=True)


def _wait_for_postgres(url: str, process: subprocess.Popen, log: Path) -> None:
    import psycopg

    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with psycopg.connect(url, password=PG_PASSWORD, connect_timeout=2) as conn:
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            return
        except psycopg.OperationalError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"Postgres did not start:\n{_log(log)}")
            time.sleep(0.2)
