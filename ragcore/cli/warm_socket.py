"""The wire between ``ragcore query`` and a warm ``ragcore serve``, and the query's side of it.

One Unix-domain socket inside the workspace folder (``serve.sock``); one connection per
question, JSON lines both ways. The query sends one request; the warm process answers with
``hello`` (who it is) at once, then the answer's text as ``out`` / ``err`` events as it is
written (the same ``render`` functions write it there as here: the events are its writes),
then ``exit`` with the status. ``serve_command`` is the other side.

    query -> {"protocol": 1, "workspace": ROOT, "query": {...}, "tty": false}
    serve -> {"hello": {"pid": 4242, "started": 1764370980.0, "workspace": ROOT}}
    serve -> {"out": "text"} | {"err": "text"} ...   then {"exit": 0}
    serve -> {"refused": "why"}   (another protocol, another workspace)
"""

from __future__ import annotations

import argparse
import io
import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, TextIO

from ..errors import RagcoreError

PROTOCOL = 1
SOCKET_NAME = "serve.sock"
MAX_PATH = 100  # bytes: AF_UNIX paths are capped near 104-108 bytes by the system
HELLO_SECONDS = 10.0  # a warm process says hello at once, even while it answers someone else
# What a query sends of its options: the warm process answers with exactly these.
QUERY_FIELDS = ("question", "index", "mode", "llm", "base_url", "top_k", "retrieval", "trace")


@dataclass(slots=True, frozen=True)
class Hello:
    """Who answers: the warm process's pid, its start (epoch seconds) and its workspace."""

    pid: int
    started: float
    workspace: str

    def line(self) -> str:
        at = time.strftime("%H:%M", time.localtime(self.started))
        return f"Answered by the warm process started {at} (pid {self.pid})"


def socket_path(workspace_root: Path) -> Path:
    return Path(workspace_root) / SOCKET_NAME


def too_long(path: Path) -> bool:
    return len(str(path).encode()) > MAX_PATH


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode("utf-8")


def decode(line: bytes) -> dict[str, Any]:
    """One message; a line that is not one JSON object is the other side's fault, said so."""
    try:
        message = json.loads(line.decode("utf-8"))
    except ValueError as exc:
        raise ProtocolError(f"not a ragcore serve message: {line[:80]!r}") from exc
    if not isinstance(message, dict):
        raise ProtocolError(f"not a ragcore serve message: {line[:80]!r}")
    return message


class ProtocolError(Exception):
    """A message that breaks the protocol (kept inside the CLI: both ends are ours)."""


def query_request(args: argparse.Namespace, workspace_root: Path, *, tty: bool) -> dict:
    return {"protocol": PROTOCOL, "workspace": str(workspace_root), "tty": tty,
            "query": {name: getattr(args, name) for name in QUERY_FIELDS}}


def query_args(request: dict[str, Any]) -> argparse.Namespace:
    """The query's options back as the namespace ``query_command`` reads."""
    query = request.get("query") or {}
    missing = [name for name in QUERY_FIELDS if name not in query]
    if missing:
        raise ProtocolError(f"the query lacks {', '.join(missing)}")
    return argparse.Namespace(**{name: query[name] for name in QUERY_FIELDS})


def refusal(request: dict[str, Any], workspace_root: Path) -> str | None:
    """Why a warm process must not answer this request, or None."""
    if request.get("protocol") != PROTOCOL:
        return (f"it speaks protocol {PROTOCOL}, the query {request.get('protocol')!r} (another "
                "ragcore version): restart it with `ragcore serve --stop` and `ragcore serve`")
    if request.get("workspace") != str(workspace_root):
        return (f"it serves the workspace {workspace_root}, not {request.get('workspace')}: "
                "start one in that workspace")
    return None


def lines(conn: socket.socket) -> Iterator[dict[str, Any]]:
    """The messages read from a connection until it closes."""
    with conn.makefile("rb") as reader:
        for line in reader:
            if line.strip():
                yield decode(line)


class SocketText(io.TextIOBase):
    """A text stream whose writes are sent as ``out`` or ``err`` events, each as it is written
    (the renderer flushes per chunk, so the answer streams as it does on a terminal)."""

    def __init__(self, conn: socket.socket, kind: str, *, tty: bool = False) -> None:
        self._conn, self._kind, self._tty = conn, kind, tty

    def write(self, text: str) -> int:
        if text:
            self._conn.sendall(encode({self._kind: text}))
        return len(text)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._tty


@dataclass(slots=True)
class Answered:
    """A question answered by a warm process: who answered and the exit status."""

    hello: Hello
    status: int


def connect(path: Path) -> socket.socket:
    """A connection to the warm process at ``path``; ConnectionRefusedError if none listens."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(str(path))
    except OSError:
        conn.close()
        raise
    return conn


def ask(path: Path, request: dict[str, Any], out: TextIO, err: TextIO) -> Answered:
    """Send ``request`` and copy the answer's events to ``out`` and ``err`` as they come."""
    conn = connect(path)
    with conn:
        conn.settimeout(HELLO_SECONDS)
        conn.sendall(encode(request))
        messages = lines(conn)
        first = next(messages, None)
        conn.settimeout(None)  # an answer takes as long as the model does
        if first is None or "hello" not in first:
            raise ProtocolError(first.get("refused", f"no hello: {first!r}") if first
                                else "it closed the connection without a word")
        hello = Hello(**first["hello"])
        err.write(hello.line() + "\n")
        for message in messages:
            if "exit" in message:
                return Answered(hello, int(message["exit"]))
            for kind, stream in (("out", out), ("err", err)):
                if kind in message:
                    stream.write(message[kind])
                    stream.flush()
    # Part of the answer is written: answering here too would write it twice.
    raise RagcoreError(f"the warm process (pid {hello.pid}) stopped before its answer ended: "
                       "ask again (with none running, `ragcore query` answers by itself)")
