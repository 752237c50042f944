"""A loopback HTTP server that misbehaves on purpose: keep-alive drips, huge bodies, stalls.

``HostileServer(mode)`` answers every POST (any path) the same way:

- ``"drip"``: status 200, then one space every ``interval`` seconds (chunked, no newline) until
  the client hangs up or ``limit`` seconds pass: a reply that never ends and never goes silent;
- ``"drip-json"``: the same under ``Content-Type: application/json``;
- ``"big"``: a valid JSON body of ``size`` bytes with its Content-Length;
- ``"big-chunked"``: the same body, chunked, so the client cannot know its size in advance;
- ``"stall"``: reads the request and sends nothing until the client hangs up.

``server.posts`` counts the POSTs received; ``server.sent`` the body bytes written.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def big_json(size: int) -> bytes:
    """A JSON object of about ``size`` bytes that every route's reader would accept the shape of:
    a chat message and embeddings, both enormous."""
    row = "[" + ", ".join(["0.123456789"] * 1000) + "]"
    rows = max(1, size // (2 * len(row)))
    vectors = "[" + ", ".join([row] * rows) + "]"
    data = [{"object": "embedding", "index": 0, "embedding": [0.1]}]
    head = json.dumps({"message": {"role": "assistant", "content": "x" * (size // 2)},
                       "data": data})[:-1]
    return f'{head}, "embeddings": {vectors}}}'.encode()


class HostileServer:
    def __init__(self, mode: str, *, interval: float = 0.5, limit: float = 60.0,
                 size: int = 50_000_000) -> None:
        self.mode = mode
        self.interval = interval
        self.limit = limit
        self.body = big_json(size) if mode.startswith("big") else b""
        self.posts = 0
        self.sent = 0
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.hostile = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def count(self, sent: int = 0, post: bool = False) -> None:
        with self._lock:
            self.sent += sent
            self.posts += post


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        return

    def do_GET(self) -> None:  # noqa: N802
        self.do_POST()

    def do_POST(self) -> None:  # noqa: N802
        server: HostileServer = self.server.hostile  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        server.count(post=True)
        self.close_connection = True
        try:
            getattr(self, "_" + server.mode.replace("-", "_"))(server)
        except OSError:
            return  # the client hung up: that is what these tests expect

    def _stall(self, server: HostileServer) -> None:
        server.stopping.wait(server.limit)

    def _drip(self, server: HostileServer, json_body: bool = False) -> None:
        self.send_response(200)
        kind = "application/json" if json_body else "application/x-ndjson"
        self.send_header("Content-Type", kind)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        end = time.monotonic() + server.limit
        while time.monotonic() < end and not server.stopping.wait(server.interval):
            self.wfile.write(b"1\r\n \r\n")
            self.wfile.flush()
            server.count(1)

    def _drip_json(self, server: HostileServer) -> None:
        self._drip(server, json_body=True)

    def _big(self, server: HostileServer, chunked: bool = False) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(len(server.body)))
        self.end_headers()
        step = 64 * 1024
        for at in range(0, len(server.body), step):
            piece = server.body[at:at + step]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            server.count(len(piece))
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _big_chunked(self, server: HostileServer) -> None:
        self._big(server, chunked=True)
