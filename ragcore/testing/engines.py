"""Real database engines on loopback ports, for tests and benchmarks of the external stores.

``chroma_server()`` runs ``chroma run`` (from the installed chromadb) on a free 127.0.0.1 port
with its data in a temporary folder and yields ``chroma+http://127.0.0.1:PORT``.

``postgres_server()`` runs Postgres 16 with pgvector from the ``pgserver`` wheel's binaries (or
from ``$RAGCORE_PG_BINDIR``), initialised in a temporary folder with password authentication, on
a free 127.0.0.1 port, and yields ``postgresql://ragcore@127.0.0.1:PORT/postgres`` (no password:
it is ``PG_PASSWORD``, which the caller puts in ``$RAGCORE_PG_PASSWORD`` the way a deployment
would). Postgres refuses to run as root, so under root (CI, containers) it runs as ``nobody``
from a copy of the binaries in the temporary folder (the checkout may be under /root).

Both raise ``EngineMissing`` when the Python package is not installed (callers skip) and
``EngineFailed`` with the engine's log when it is installed but does not start (callers fail).
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
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

PG_PASSWORD = "ragcore-test-secret"
START_TIMEOUT = 90.0  # seconds; a loaded 2-core CI machine can be slow


class EngineMissing(RuntimeError):
    """The engine's package is not installed."""


class EngineFailed(RuntimeError):
    """The engine is installed but did not start."""


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


@contextmanager
def chroma_server() -> Iterator[str]:
    try:
        import chromadb  # noqa: F401
    except ImportError as exc:
        raise EngineMissing("chromadb is not installed: pip install 'ragcore[chroma]'") from exc
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
                    raise EngineFailed(f"the Chroma server did not start on port {port}:\n"
                                       f"{_log(log)}") from None
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


def _as_user() -> dict[str, Any]:
    """Popen arguments that drop root for Postgres (it refuses to run as root)."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _private_copy(bindir: Path, folder: Path) -> Path:
    """pgserver's binaries copied under ``folder``, keeping the layout their rpath expects
    ($ORIGIN/../../../pgserver.libs)."""
    copy = folder / "pg" / "pgserver" / "pginstall"
    shutil.copytree(bindir.parent, copy, symlinks=True)
    libs = bindir.parents[2] / "pgserver.libs"
    if libs.is_dir():
        shutil.copytree(libs, folder / "pg" / "pgserver.libs", symlinks=True)
    return copy / "bin"


@contextmanager
def postgres_server() -> Iterator[str]:
    try:
        import psycopg  # noqa: F401
    except ImportError as exc:
        raise EngineMissing("psycopg is not installed: pip install 'ragcore[postgres]'") from exc
    bindir = pg_bindir()
    if bindir is None:
        raise EngineMissing("no Postgres with pgvector: pip install pgserver, or set "
                            "RAGCORE_PG_BINDIR to a bin folder with initdb and postgres")
    folder = Path(tempfile.mkdtemp(prefix="ragcore-pg-"))
    data, log, pwfile = folder / "data", folder / "postgres.log", folder / "pwfile"
    pwfile.write_text(PG_PASSWORD + "\n")
    user = _as_user()
    if user:
        os.chmod(folder, 0o755)
        for path in (folder, pwfile):
            os.chown(path, user["user"], user["group"])
        bindir = _private_copy(bindir, folder)
    process = None
    try:
        init = subprocess.run(
            [str(bindir / "initdb"), "-D", str(data), "-U", "ragcore", f"--pwfile={pwfile}",
             "--auth=scram-sha-256", "-E", "UTF8", "--no-sync"],
            capture_output=True, text=True, **user,
        )
        if init.returncode:
            raise EngineFailed(f"initdb failed:\n{init.stdout[-2000:]}\n{init.stderr[-2000:]}")
        port = free_port()
        with log.open("wb") as out:
            process = subprocess.Popen(
                [str(bindir / "postgres"), "-D", str(data), "-p", str(port),
                 "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={data}",
                 "-c", "fsync=off", "-c", "max_connections=200",
                 "-c", "shared_buffers=256MB"],
                stdout=out, stderr=subprocess.STDOUT, **user,
            )
        url = f"postgresql://ragcore@127.0.0.1:{port}/postgres"
        _wait_for_postgres(url, process, log)
        yield url
    finally:
        if process is not None:
            _stop(process, signal.SIGINT)  # SIGINT: Postgres's fast shutdown
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
                raise EngineFailed(f"Postgres did not start:\n{_log(log)}") from None
            time.sleep(0.2)
