"""A real HTTP server on 127.0.0.1 speaking the Ollama and OpenAI wire formats, for tests.

Start it with the ``loopback`` pytest fixture (import it into your test module:
``from loopback import Reply, loopback  # noqa: F401``) or ``with LoopbackServer() as server:``.

    def test_answer(loopback):
        loopback.queue(Reply(text="Paris is the capital."))
        llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url)
        assert complete(llm, [Message("user", "Capital?")]) == "Paris is the capital."
        assert loopback.requests[-1].json["model"] == "llama3.1"

Routes (response shapes copied from the Ollama and OpenAI API references):

    Ollama   GET /api/tags            {"models": [{"name": ..., "model": ..., "details": ...}]}
             POST /api/chat           NDJSON stream (or one object when "stream": false)
             POST /api/embed          {"model": ..., "embeddings": [[...], ...]}
             POST /api/pull           NDJSON progress: "pulling manifest", "pulling <digest>"
                                      lines with total/completed bytes, ..., "success"
    OpenAI   GET /v1/models           {"object": "list", "data": [{"id": ..., ...}]}
             POST /v1/chat/completions  SSE "data: {chunk}" events + "data: [DONE]", or one
                                      chat.completion object (with tool_calls) if not streamed
             POST /v1/embeddings      {"object": "list", "data": [{"embedding": [...], "index": i}]}

Behaviour:
- A request naming a model not in ``server.models`` gets that API's real 404 error body
  (Ollama: ``{"error": "model \\"x\\" not found, try pulling it first"}``). Ollama names match
  with or without ``:latest``.
- If ``server.api_key`` is set, ``/v1/*`` requires ``Authorization: Bearer <key>`` (else 401).
- Each POST takes the next queued ``Reply`` (first in, first out); with none queued, chat echoes
  ``"Echo: <last user message>"`` and embedding routes return deterministic, unnormalized vectors
  of ``server.embedding_dim`` numbers.
- Every request is recorded in ``server.requests`` (method, path, headers, json); when the
  server is done with it, its ``done`` event is set, and ``client_closed`` says whether the
  client hung up before the reply was complete.
- ``Reply(stream_for=5.0, chunk_delay=0.05)`` streams its chunks over and over for five seconds
  (a model that will not stop); a whole JSON reply with a ``chunk_delay`` trickles out in small
  pieces (a slow server that never falls silent).
- ``Reply(status=429, retry_after="2")`` sends that Retry-After header with the error.
- ``/api/pull`` takes the next queued ``Reply`` too: ``pull_size`` bytes in ``pull_steps``
  progress lines (``chunk_delay`` apart); then the model is added to ``server.models``.
  ``Reply(pull_error_after=2, error="...")`` sends an ``{"error": ...}`` line after two progress
  lines, ``reset_after=2`` resets the connection there, ``status=...`` answers that HTTP error.
- ``unused_url()`` gives a URL where nothing listens (for "connection refused" tests).
"""

from __future__ import annotations

import hashlib
import json
import socket
import struct
import sys
import itertools
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterable, Iterator

import pytest

DEFAULT_MODELS = ("llama3.1:latest", "nomic-embed-text:latest", "gpt-4o-mini",
                  "text-embedding-3-small")


@dataclass
class Reply:
    """What the server does with one POST request. Defaults give a normal, successful reply."""

    text: str = "Hello from the loopback server."
    chunks: list[str] | None = None  # exact stream chunks (default: the text split into words)
    # (name, arguments as a dict or JSON text); answered only to non-streamed OpenAI requests
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200
    error: str = "loopback error"  # the message inside the API's error body when status >= 400
    retry_after: str | None = None  # a Retry-After header sent with an error status
    delay: float = 0.0  # seconds to wait before sending the status line (to trigger timeouts)
    chunk_delay: float = 0.0  # seconds between stream chunks (or pieces of a whole JSON reply)
    stream_for: float | None = None  # repeat the chunks for this many seconds, then end
    reset_after: int | None = None  # send this many chunks, then reset the connection
    malformed: str | None = None  # a raw line sent after the chunks, before the end marker
    sse_comments: bool = False  # put ": keep-alive" comment lines between SSE events
    embeddings: list[list[float]] | None = None  # vectors for an embedding request
    pull_size: int = 2_000_000_000  # bytes a model download announces (/api/pull)
    pull_steps: int = 4  # progress lines of that download
    pull_error_after: int | None = None  # progress lines before an {"error": ...} line

    def stream_chunks(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        words = self.text.split(" ")
        return [w if i == 0 else " " + w for i, w in enumerate(words)]

    def chunk_source(self) -> Iterator[str]:
        """The chunks to stream: once, or over and over until ``stream_for`` seconds pass."""
        if self.stream_for is None:
            yield from self.stream_chunks()
            return
        end = time.monotonic() + self.stream_for
        for chunk in itertools.cycle(self.stream_chunks()):
            if time.monotonic() >= end:
                return
            yield chunk


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # lower-case names
    json: Any  # the parsed body, or None
    done: threading.Event = field(default_factory=threading.Event)  # the server is done with it
    client_closed: bool = False  # the client hung up before the reply was complete


def unused_url() -> str:
    """``http://127.0.0.1:<port>`` where nothing listens, so connecting is refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


class LoopbackServer:
    """A scripted Ollama + OpenAI server in a background thread on a random free port."""

    def __init__(self, *, models: tuple[str, ...] | list[str] = DEFAULT_MODELS,
                 api_key: str | None = None, embedding_dim: int = 8) -> None:
        self.models = list(models)
        self.api_key = api_key
        self.embedding_dim = embedding_dim
        self.requests: list[RecordedRequest] = []
        self._replies: list[Reply] = []
        self._lock = threading.Lock()
        self.stopping = threading.Event()
        self._httpd = _QuietServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.loopback = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def ollama_url(self) -> str:
        return self.base_url

    @property
    def openai_url(self) -> str:
        return self.base_url + "/v1"

    def queue(self, *replies: Reply) -> None:
        """Script the next POST requests, in order."""
        with self._lock:
            self._replies.extend(replies)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def start(self) -> LoopbackServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.stopping.set()  # wakes handlers waiting out a delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self) -> Reply | None:
        with self._lock:
            return self._replies.pop(0) if self._replies else None

    def _has_model(self, name: Any, ollama: bool) -> bool:
        if not isinstance(name, str):
            return False
        return name in self.models or (ollama and f"{name}:latest" in self.models)


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started ``LoopbackServer``, closed after the test."""
    with LoopbackServer() as server:
        yield server


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def _fake_vector(text: str, dim: int) -> list[float]:
    out = [0.1] * dim
    for word in text.lower().split():
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        out[int.from_bytes(digest, "little") % dim] += 1.0
    return out


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-reply is normal in these tests; anything else is shown."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small writes go out at once (no 40 ms delayed-ACK stalls)
    server_version = "loopback/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep test output quiet
        return

    @property
    def loop(self) -> LoopbackServer:
        return self.server.loopback  # type: ignore[attr-defined]

    # --- plumbing -------------------------------------------------------------------------
    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            return None

    def _send_json(self, status: int, data: Any, *, piece_delay: float = 0.0,
                   retry_after: str | None = None) -> None:
        """One JSON reply; with ``piece_delay``, in 16-byte pieces that far apart."""
        body = json.dumps(data).encode()
        self.send_response(status)
        if retry_after is not None:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        if not piece_delay:
            self.wfile.write(body)
            return
        for start in range(0, len(body), 16):
            if start and not self._wait(piece_delay):
                return
            if not self._send_piece(lambda: self.wfile.write(body[start:start + 16])):
                return

    def _send_piece(self, write: Any) -> bool:
        """Run ``write``; False (and the request marked) if the client has hung up."""
        try:
            write()
            self.wfile.flush()
        except OSError:
            self.recorded.client_closed = True
            return False
        return True

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _write_chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")

    def _reset(self) -> None:
        """Abort the connection with a TCP reset, as a crashing server would."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def _wait(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; False if it is."""
        return not (seconds and self.loop.stopping.wait(seconds))

    def _stream(self, reply: Reply, lines: Iterable[str], end: list[str], content_type: str,
                *, preamble: int = 0) -> None:
        """Send ``lines`` (chunks) then ``end``, with the reply's delays, reset and bad line.

        ``preamble``: leading lines that carry no text (not counted by ``reset_after``).
        """
        self._start_stream(content_type)
        reset_at = None if reply.reset_after is None else reply.reset_after + preamble
        for i, line in enumerate(lines):
            if reset_at is not None and i >= reset_at:
                self._reset()
                return
            if i and not self._wait(reply.chunk_delay):
                return
            if not self._send_piece(lambda: self._write_chunk(line)):
                return
        if reply.reset_after is not None:
            self._reset()
            return
        if reply.malformed is not None:
            self._write_chunk(reply.malformed + "\n")
        for line in end:
            self._write_chunk(line)
        self._end_stream()

    # --- routing --------------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self.recorded = RecordedRequest("GET", self.path, self._headers(), None)
        self.loop._record(self.recorded)
        try:
            self._get()
        finally:
            self.recorded.done.set()

    def _get(self) -> None:
        if self.path == "/api/tags":
            self._send_json(200, {"models": [_ollama_model(m) for m in self.loop.models]})
        elif self.path == "/v1/models":
            if self._openai_auth_failed():
                return
            data = [{"id": m, "object": "model", "created": 1686935002, "owned_by": "loopback"}
                    for m in self.loop.models]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        body = self._read_json()
        self.recorded = RecordedRequest("POST", self.path, self._headers(), body)
        self.loop._record(self.recorded)
        try:
            self._post(body)
        finally:
            self.recorded.done.set()

    def _post(self, body: Any) -> None:
        routes = {
            "/api/chat": self._ollama_chat,
            "/api/embed": self._ollama_embed,
            "/v1/chat/completions": self._openai_chat,
            "/v1/embeddings": self._openai_embed,
        }
        if self.path == "/api/pull":
            self._ollama_pull(body if isinstance(body, dict) else {})
            return
        route = routes.get(self.path)
        if route is None:
            self._send_json(404, {"error": "404 page not found"})
            return
        ollama = self.path.startswith("/api/")
        if not ollama and self._openai_auth_failed():
            return
        model = (body or {}).get("model") if isinstance(body, dict) else None
        if not self.loop._has_model(model, ollama):
            self._model_not_found(model, ollama)
            return
        reply = self.loop._next_reply() or Reply(text=self._echo(body))
        if not self._wait(reply.delay):
            return
        if reply.status >= 400:
            self._error(reply.status, reply.error, ollama, reply.retry_after)
            return
        route(body, reply)

    def _headers(self) -> dict[str, str]:
        return {k.lower(): v for k, v in self.headers.items()}

    def _echo(self, body: Any) -> str:
        messages = body.get("messages") or [] if isinstance(body, dict) else []
        users = [m.get("content", "") for m in messages if m.get("role") == "user"]
        return f"Echo: {users[-1]}" if users else "Echo: (no user message)"

    # --- errors in each API's shape ---------------------------------------------------------
    def _error(self, status: int, message: str, ollama: bool,
               retry_after: str | None = None) -> None:
        if ollama:
            self._send_json(status, {"error": message}, retry_after=retry_after)
            return
        kind = "server_error" if status >= 500 else "invalid_request_error"
        self._send_json(status, {"error": {"message": message, "type": kind, "param": None,
                                           "code": None}}, retry_after=retry_after)

    def _model_not_found(self, model: Any, ollama: bool) -> None:
        if ollama:
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        message = f"The model `{model}` does not exist or you do not have access to it."
        self._send_json(404, {"error": {"message": message, "type": "invalid_request_error",
                                        "param": None, "code": "model_not_found"}})

    def _openai_auth_failed(self) -> bool:
        key = self.loop.api_key
        if key is None:
            return False
        given = self.headers.get("Authorization", "")
        if given == f"Bearer {key}":
            return False
        if given:
            message = f"Incorrect API key provided: {given.removeprefix('Bearer ')[:8]}..."
        else:
            message = "You didn't provide an API key."
        self._send_json(401, {"error": {"message": message, "type": "invalid_request_error",
                                        "param": None, "code": "invalid_api_key"}})
        return True

    # --- Ollama ---------------------------------------------------------------------------
    def _ollama_chat(self, body: dict[str, Any], reply: Reply) -> None:
        model = body["model"]
        chunks = reply.stream_chunks()
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        final = {
            "model": model, "created_at": _now(),
            "message": {"role": "assistant", "content": ""},
            "done_reason": "stop", "done": True,
            "total_duration": 4883583458, "load_duration": 1334875,
            "prompt_eval_count": prompt_tokens, "prompt_eval_duration": 342546000,
            "eval_count": len(chunks), "eval_duration": 4535599000,
        }
        if body.get("stream") is False:
            final["message"]["content"] = "".join(chunks)
            self._send_json(200, final, piece_delay=reply.chunk_delay)
            return
        lines = (json.dumps({"model": model, "created_at": _now(),
                             "message": {"role": "assistant", "content": c}, "done": False}) + "\n"
                 for c in reply.chunk_source())
        self._stream(reply, lines, [json.dumps(final) + "\n"], "application/x-ndjson")

    def _ollama_pull(self, body: dict[str, Any]) -> None:
        reply = self.loop._next_reply() or Reply()
        name = body.get("model") or body.get("name")
        if reply.status >= 400 or not isinstance(name, str):
            self._error(reply.status if reply.status >= 400 else 400,
                        reply.error if reply.status >= 400 else "model is required", True)
            return
        digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
        steps = [{"status": f"pulling {digest[7:19]}", "digest": digest, "total": reply.pull_size,
                  "completed": reply.pull_size * i // reply.pull_steps}
                 for i in range(1, reply.pull_steps + 1)]
        if reply.pull_error_after is not None:
            steps = steps[:reply.pull_error_after] + [{"error": reply.error}]
        ending = [] if reply.pull_error_after is not None else [
            {"status": "verifying sha256 digest"}, {"status": "writing manifest"},
            {"status": "success"}]
        lines = (json.dumps(s) + "\n" for s in [{"status": "pulling manifest"}, *steps])
        self._stream(reply, lines, [json.dumps(s) + "\n" for s in ending],
                     "application/x-ndjson", preamble=1)
        if ending and reply.reset_after is None and not self.recorded.client_closed:
            with self.loop._lock:
                self.loop.models.append(name if ":" in name else f"{name}:latest")

    def _ollama_embed(self, body: dict[str, Any], reply: Reply) -> None:
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        vectors = reply.embeddings or [_fake_vector(t, self.loop.embedding_dim) for t in inputs]
        self._send_json(200, {"model": body["model"], "embeddings": vectors,
                              "total_duration": 14143917, "load_duration": 1019500,
                              "prompt_eval_count": sum(len(t.split()) for t in inputs)},
                        piece_delay=reply.chunk_delay)

    # --- OpenAI ---------------------------------------------------------------------------
    def _openai_chat(self, body: dict[str, Any], reply: Reply) -> None:
        if body.get("stream"):
            self._openai_stream(body["model"], reply)
            return
        calls = [
            {"id": f"call_{i + 1}", "type": "function",
             "function": {"name": name,
                          "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
        message: dict[str, Any] = {"role": "assistant",
                                   "content": None if calls else reply.text, "refusal": None}
        if calls:
            message["tool_calls"] = calls
        self._send_json(200, {
            "id": "chatcmpl-loopback", "object": "chat.completion", "created": 1700000000,
            "model": body["model"], "system_fingerprint": "fp_loopback",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }, piece_delay=reply.chunk_delay)

    def _openai_stream(self, model: str, reply: Reply) -> None:
        def event(delta: dict[str, Any], finish: str | None) -> str:
            chunk = {"id": "chatcmpl-loopback", "object": "chat.completion.chunk",
                     "created": 1700000000, "model": model, "system_fingerprint": "fp_loopback",
                     "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                  "finish_reason": finish}]}
            comment = ": keep-alive\n\n" if reply.sse_comments else ""
            return f"{comment}data: {json.dumps(chunk)}\n\n"

        first = [event({"role": "assistant", "content": ""}, None)]
        lines = itertools.chain(first, (event({"content": c}, None) for c in reply.chunk_source()))
        end = [event({}, "stop"), "data: [DONE]\n\n"]
        self._stream(reply, lines, end, "text/event-stream; charset=utf-8", preamble=1)

    def _openai_embed(self, body: dict[str, Any], reply: Reply) -> None:
        inputs = body.get("input")
        inputs = [inputs] if isinstance(inputs, str) else list(inputs or [])
        vectors = reply.embeddings or [_fake_vector(t, self.loop.embedding_dim) for t in inputs]
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        tokens = sum(len(t.split()) for t in inputs)
        self._send_json(200, {"object": "list", "data": data, "model": body["model"],
                              "usage": {"prompt_tokens": tokens, "total_tokens": tokens}},
                        piece_delay=reply.chunk_delay)


def _ollama_model(name: str) -> dict[str, Any]:
    return {
        "name": name, "model": name, "modified_at": "2024-07-23T10:12:45.123456789Z",
        "size": 4661224676,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {"parent_model": "", "format": "gguf", "family": "llama",
                    "families": ["llama"], "parameter_size": "8.0B",
                    "quantization_level": "Q4_0"},
    }
