"""``ragcore serve``: keep the index, the language model and the embedder loaded, and answer
every ``ragcore query`` of this workspace from them (issue 65).

A fresh ``ragcore query`` pays their load each time; this process pays it once. It listens on
``serve.sock`` in the workspace folder (``warm_socket``: the wire and the query's side) and
answers each question with ``query_command.answer_query``, its writes sent back as they happen,
so the terminal shows what a fresh query shows. One answer at a time (one model); a second
asker is greeted at once and waits. An index changed on disk (an ingest, a deletion) is loaded
again before the next answer, as the app does. Ctrl-C, SIGTERM or ``ragcore serve --stop``
stop it; it removes its socket then.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import stat
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import RagcoreError, WorkspaceError
from ..retrieval.retrievers import DEFAULT_MODE
from .index_commands import add_index_option
from .query_command import answer_query, choose_llm, describe, load_embedder
from .warm_socket import (
    Hello, ProtocolError, SocketText, connect, encode, lines, query_args, refusal, socket_path,
    too_long,
)

if TYPE_CHECKING:
    from .context import CliContext

logger = logging.getLogger(__name__)
POLL_SECONDS = 0.2  # how soon the accept loop sees a stop


def add_parsers(commands, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "serve", parents=[common], help="keep the models loaded; `ragcore query` asks it",
        description="Load the index, the language model and the embedding model once and "
                    "answer every `ragcore query` of this workspace from them, until Ctrl-C "
                    "or `ragcore serve --stop`.")
    add_index_option(serve)
    serve.add_argument("--stop", action="store_true",
                       help="stop the warm process of this workspace")
    serve.set_defaults(run=run_serve)


def run_serve(args: argparse.Namespace, context: CliContext) -> int:
    root = context.workspace().root
    path = socket_path(root)
    if args.stop:
        return stop(path, sys.stderr)
    if too_long(path):
        raise WorkspaceError(f"the socket path {path} is too long for this system: use a "
                             "workspace folder with a shorter path (--workspace)")
    if not hasattr(socket, "AF_UNIX"):
        raise WorkspaceError("`ragcore serve` needs Unix-domain sockets, which this system "
                             "lacks: use `ragcore chat` to ask many questions in one process")
    listener = listen(path, sys.stderr)
    inode = os.stat(path).st_ino
    server = None
    try:
        server = WarmServer(context, listener, Hello(os.getpid(), time.time(), str(root)))
        _stop_on_sigterm()
        server.start(args.index, sys.stderr)
        server.serve()
    except KeyboardInterrupt:
        sys.stderr.write("\n")
    finally:
        listener.close()
        remove_socket(path, inode)
    if server is not None and server.failed is not None:  # said as any command's error
        raise server.failed
    sys.stderr.write("Stopped; the next `ragcore query` loads the models itself.\n")
    return 0


def listen(path: Path, err: TextIO) -> socket.socket:
    """A listening socket at ``path``: a stale one is replaced, a live one refused."""
    if path.exists() or path.is_symlink():
        if not stat.S_ISSOCK(path.lstat().st_mode):
            raise WorkspaceError(f"{path} is not a socket: move it out of the workspace folder")
        try:
            connect(path).close()
        except (ConnectionRefusedError, FileNotFoundError):
            path.unlink(missing_ok=True)
            err.write(f"Replaced {path}, left by a `ragcore serve` that no longer runs.\n")
        else:
            raise WorkspaceError(f"a `ragcore serve` already answers in {path.parent}: stop it "
                                 "with `ragcore serve --stop` before starting another")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)  # the questions and answers are this user's
    listener.listen(8)
    listener.settimeout(POLL_SECONDS)
    return listener


def stop(path: Path, err: TextIO) -> int:
    """Ask the warm process at ``path`` to stop (a stale socket is removed)."""
    if not path.exists():
        err.write(f"No `ragcore serve` runs in {path.parent}.\n")
        return 1
    try:
        conn = connect(path)
    except (ConnectionRefusedError, FileNotFoundError):
        path.unlink(missing_ok=True)
        err.write(f"Removed {path}, left by a `ragcore serve` that no longer runs.\n")
        return 0
    with conn:
        conn.settimeout(60.0)  # it stops once the answer it writes is done
        conn.sendall(encode({"stop": True}))
        reply = next(lines(conn), {})
    err.write(f"Stopped the warm process (pid {reply.get('stopped', '?')}).\n")
    return 0


class WarmServer:
    """The loaded objects and the accept loop; answers one question at a time."""

    def __init__(self, context: CliContext, listener: socket.socket, hello: Hello) -> None:
        self.context = context
        self.workspace = context.workspace()
        self.listener = listener
        self.hello = hello
        self.stopping = threading.Event()
        self.failed: Exception | None = None  # why the preload failed
        self._answering = threading.Lock()
        self._indexes: dict[str, tuple[object, object]] = {}  # name -> (version, index)

    def start(self, name: str, err: TextIO) -> None:
        """Preload in a thread while ``serve`` already greets: a query asked meanwhile waits for
        the load instead of loading the models a second time beside it."""
        self._answering.acquire()

        def load() -> None:
            try:
                self.preload(name, err)
                err.write(f"Warm: `ragcore query` in {self.hello.workspace} is answered here "
                          f"(pid {self.hello.pid}). Stop with Ctrl-C or `ragcore serve --stop`.\n")
            except Exception as exc:  # raised again by run_serve, on its own thread
                self.failed = exc
                self.stopping.set()
            finally:
                self._answering.release()

        threading.Thread(target=load, daemon=True).start()

    def preload(self, name: str, err: TextIO) -> None:
        """Load the index, the workspace's language model and the embedder before any
        question (an index not made yet loads at its first question)."""
        started = time.perf_counter()
        llm = choose_llm(argparse.Namespace(llm=None, base_url=None), self.context, err)
        if name not in self.workspace.index_names():
            err.write(f"Loaded {describe(llm)}; no index {name!r} yet: an index loads, with its "
                      "embedding model, at its first question.\n")
            return
        load_embedder(self.index(name, err), DEFAULT_MODE, err)
        err.write(f"Loaded {describe(llm)}, the embedding model and index {name!r} in "
                  f"{time.perf_counter() - started:.1f} s.\n")

    def index(self, name: str, err: TextIO):
        """The named index, loaded again if it changed on disk since it was loaded here."""
        version = self.workspace.index_version(name)
        held = self._indexes.get(name)
        if held is not None and held[0] == version:
            return held[1]
        started = time.perf_counter()
        index = self.workspace.load_index(name)
        self._indexes[name] = (version, index)
        if held is not None:
            err.write(f"The index {name!r} changed on disk; loaded it again "
                      f"({time.perf_counter() - started:.1f} s).\n")
        return index

    def answer(self, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        index = self.index(args.index, err)
        llm = choose_llm(args, self.context, err)  # cheap: the engines stay loaded
        return answer_query(args, self.context, index, llm, out, err)

    def serve(self) -> None:
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except socket.timeout:
                continue
            conn.settimeout(None)
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()
        with self._answering:  # a stop lets the answer being written end
            pass

    def handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                self._handle(conn)
            except (BrokenPipeError, ConnectionResetError):
                logger.info("the asker left before the answer ended")
            except ProtocolError as exc:
                conn.sendall(encode({"refused": str(exc)}))
            except Exception as exc:  # a bug: this terminal gets the traceback, the asker a word
                logger.exception("answering failed")
                conn.sendall(encode({"err": f"error: the warm process failed ({exc!r}); its "
                                            "terminal shows where\n"}) + encode({"exit": 1}))

    def _handle(self, conn: socket.socket) -> None:
        request = next(lines(conn), None)
        if request is None:
            return
        if request.get("stop"):
            self.stopping.set()
            conn.sendall(encode({"stopped": self.hello.pid}))
            return
        why = refusal(request, Path(self.hello.workspace))
        if why is not None:
            raise ProtocolError(why)
        args = query_args(request)
        conn.sendall(encode({"hello": asdict(self.hello)}))
        out = SocketText(conn, "out", tty=bool(request.get("tty")))
        err = SocketText(conn, "err")
        with self._answering:
            try:
                status = self.answer(args, out, err)
            except RagcoreError as exc:
                err.write(f"error: {exc}\n")
                status = 1
        conn.sendall(encode({"exit": status}))



def remove_socket(path: Path, inode: int) -> None:
    """Remove the socket this process made (not one another ``serve`` has put there since)."""
    with contextlib.suppress(FileNotFoundError):  # removed by hand already
        if os.stat(path).st_ino == inode:
            path.unlink()


def _stop_on_sigterm() -> None:
    """`kill PID` stops it as Ctrl-C does, so its socket is removed."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt
