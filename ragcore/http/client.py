"""The HTTP layer shared by the Ollama and OpenAI-compatible backends (LLMs and embedders).

One ``Connection`` per backend instance: it owns (or is handed) an ``httpx.Client``, sends
requests with connect/read timeouts suited to slow local models, retries connection errors and
5xx answers a bounded number of times with exponential backoff (never 4xx, never a read timeout,
never once a reply has started), and translates every httpx failure into a ragcore error that
names the server, its URL, the model, the status and what to do.

Every request also runs against a ``Deadline`` (``options``): ``request_timeout`` seconds
from sending it to the last byte of the reply. It is checked after every piece of the body that
arrives (``body``), so a model that keeps producing tokens, or a server dripping keep-alive
spaces, is cut off within one piece of it: the response is closed and an ``LLMTimeoutError``
raised (chunks already yielded stay with the caller). No single read waits longer than the limit
either, so a silent server cannot outlast it by more than one wait. A reply read whole, or one
line of a streamed reply, over ``max_body_bytes`` is refused (``LLMResponseError``) unkept.
Retries happen only before the first byte of a reply and only while the deadline leaves time;
a 429 with Retry-After is retried after the wait it asks for, or fails at once saying so.

The checks of the options every backend takes (URL, timeout, model, window) are in
``options``; what is particular to an Ollama or an OpenAI-compatible server (start hints,
API key, model listing) is in ``servers``. Wire formats are not known here: a backend hands
``Connection.stream`` a pure decoder that turns response lines into text chunks, and raises
``StreamFormatError`` for a line it cannot read.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Iterable, Iterator
from urllib.parse import urlsplit

import httpx

from ..errors import (
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
)
from .body import DEFAULT_MAX_BODY_BYTES, ReplyTooLarge, read_body, read_lines
from .options import (  # noqa: F401  (the check_* are also imported from here, as before)
    CONNECT_TIMEOUT, DEFAULT_REQUEST_TIMEOUT, Deadline, PastDeadline, STATUS_ADVICE,
    check_base_url, check_model, check_positive, check_request_timeout, check_retries,
    check_temperature, check_window, make_timeout, retry_after_seconds,
)

logger = logging.getLogger(__name__)

QUOTE_LIMIT = 200
_CLIENT_LOCK = threading.Lock()
SLOW_HINT = "Raise the time limit (request_timeout=...) or use a smaller, faster model."

# A decoder turns the lines of a streamed reply into text chunks (see ollama.py and openai.py).
Decoder = Callable[[Iterable[str]], Iterator[str]]
# status_hint(status, server_message, path) -> advice appended to an HTTP error ("" for none).
StatusHint = Callable[[int, str, str], str]


class StreamFormatError(ValueError):
    """A decoder met a line it cannot read (``line``), or the server reported an error in-stream."""

    def __init__(self, problem: str, line: str = "") -> None:
        self.problem = problem
        self.line = line
        super().__init__(f"{problem}: {quote(line)}" if line else problem)


class StreamIncomplete(ValueError):
    """The stream ended cleanly but without the wire format's end marker."""


class ServerStreamError(ValueError):
    """The server put an error object in the stream instead of more text."""


# What reading a reply can end with, besides its end: each becomes a ragcore error (_read_error).
_READ_FAILURES = (PastDeadline, ReplyTooLarge, httpx.TransportError, httpx.DecodingError,
                  StreamIncomplete, ServerStreamError, StreamFormatError)


def decode_json_object(text: str, unit: str) -> dict[str, Any]:
    """One streamed JSON object; StreamFormatError "{unit} not JSON" (or not an object)."""
    try:
        data = json.loads(text)
    except ValueError:
        raise StreamFormatError(f"{unit} not JSON", text) from None
    if not isinstance(data, dict):
        raise StreamFormatError(f"{unit} not a JSON object", text)
    return data


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a repr, shortened to about ``limit`` characters for an error message."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def is_loopback(base_url: str) -> bool:
    host = urlsplit(base_url).hostname or ""
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def error_message_of(body: bytes) -> str:
    """The server's own error text from an error body (Ollama, OpenAI, vLLM shapes, or plain)."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:QUOTE_LIMIT]
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            return str(error)[:QUOTE_LIMIT]
    return text[:QUOTE_LIMIT]


@dataclass(slots=True)
class Connection:
    """How one backend talks to its server: URL, model, timeouts, retries, headers, client."""

    kind: str  # "Ollama", "OpenAI-compatible server": used in error messages
    base_url: str
    model: str
    timeout: httpx.Timeout
    max_retries: int = 2
    retry_backoff: float = 0.5
    headers: dict[str, str] | None = None
    client: httpx.Client | None = None
    start_hint: str = "Check that the server is running and the base URL is right."
    status_hint: StatusHint | None = None
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT  # seconds for a whole request and reply
    slow_hint: str = SLOW_HINT  # what to do when a reply outlasts request_timeout
    max_reply_chars: int | None = None  # a streamed reply longer than this is cut off
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES  # a reply read whole (or one line) beyond this

    def __post_init__(self) -> None:
        check_retries(self.max_retries, self.retry_backoff)
        self.request_timeout = check_request_timeout(self.request_timeout)

    def describe(self) -> str:
        model = f" (model {self.model})" if self.model else ""
        return f"{self.kind} at {self.base_url}{model}"

    def http(self) -> httpx.Client:
        """The injected client, or one made on first use (loopback servers bypass proxies)."""
        with _CLIENT_LOCK:  # synthesizers call one backend from several threads
            if self.client is None:
                self.client = httpx.Client(trust_env=not is_loopback(self.base_url))
            return self.client

    def stream(self, path: str, body: dict[str, Any], decode: Decoder) -> Iterator[str]:
        """POST ``body`` and yield the decoded text chunks of the streamed reply."""
        sent = 0
        deadline = Deadline.start(self.request_timeout)
        with self._open("POST", path, body, deadline=deadline) as response:
            try:
                for chunk in decode(read_lines(response, deadline, self.max_body_bytes)):
                    sent += len(chunk)
                    if self.max_reply_chars is not None and sent > self.max_reply_chars:
                        break
                    yield chunk
                else:
                    return
            except _READ_FAILURES as exc:
                raise self._read_error(exc, sent, response.request, deadline) from exc
        raise LLMResponseError(
            f"{self.describe()} sent a reply longer than {self.max_reply_chars} characters; "
            "ragcore stopped reading it. Lower num_output or ask for a shorter answer."
        )

    def request_json(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        timeout: httpx.Timeout | None = None,
        max_retries: int | None = None,
        request_timeout: float | None = None,
        max_bytes: int | None = None,
    ) -> Any:
        """Send one request and return the decoded JSON reply (``timeout``, ``max_retries``,
        ``request_timeout`` and ``max_bytes`` override the connection's for this request)."""
        deadline = Deadline.start(request_timeout or self.request_timeout)
        with self._open(method, path, body, timeout=timeout, max_retries=max_retries,
                        deadline=deadline) as resp:
            try:
                raw = read_body(resp, deadline, max_bytes or self.max_body_bytes)
            except _READ_FAILURES as exc:
                raise self._read_error(exc, 0, resp.request, deadline) from exc
        try:
            return json.loads(raw)
        except ValueError as exc:
            text = raw.decode("utf-8", errors="replace")
            raise LLMResponseError(
                f"{self.describe()} answered {method} {path} with something that is not JSON: "
                f"{quote(text)}. Check that the base URL points at the {self.kind} itself."
            ) from exc

    @contextmanager
    def _open(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        *,
        timeout: httpx.Timeout | None = None,
        max_retries: int | None = None,
        deadline: Deadline,
    ) -> Iterator[httpx.Response]:
        """An open, successful (2xx) streamed response; retries happen only here, and only
        while the deadline leaves time for them."""
        client = self.http()
        request = client.build_request(
            method, self.base_url + path, json=body, headers=self.headers,
            timeout=deadline.bound(timeout or self.timeout),
        )
        retries = self.max_retries if max_retries is None else max_retries
        attempt = 0
        while True:
            outcome = self._attempt(client, request, deadline)
            if isinstance(outcome, httpx.Response):
                break
            error, retryable, asked = outcome
            delay = self.retry_backoff * 2 ** attempt if asked is None else asked
            if asked is not None and attempt < retries and deadline.left() <= asked:
                raise LLMStatusError(f"{error} The server asked to wait {asked:g} s before "
                                     f"retrying, longer than the {deadline.left():.0f} s left "
                                     "of the time limit (request_timeout).", error.status_code)
            if attempt >= retries or not retryable or deadline.left() <= delay:
                raise error
            attempt += 1
            logger.warning("%s; retry %d/%d in %.1fs", error, attempt, retries, delay)
            time.sleep(delay)
        try:
            yield outcome
        finally:
            outcome.close()

    def _attempt(
        self, client: httpx.Client, request: httpx.Request, deadline: Deadline
    ) -> httpx.Response | tuple[Any, bool, float | None]:
        """The open response, or the error this attempt ended with, whether to retry, and the
        seconds a 429's Retry-After asked for (None if it did not ask).

        Connection failures, 5xx and a 429 with Retry-After are worth another try; other 4xx
        and slow replies are not (a slow model will be as slow again; the user is waiting).
        """
        try:
            response = client.send(request, stream=True)
        except httpx.TimeoutException as exc:
            error = self._timeout_error(exc, 0, request, deadline)
            return error, isinstance(exc, httpx.ConnectTimeout), None
        except httpx.TransportError as exc:
            return self._connect_error(exc), True, None
        if response.status_code < 300:
            return response
        if response.status_code < 400:  # httpx does not follow redirects: say where to go
            response.close()
            location = response.headers.get("location", "(no location given)")
            message = f"redirected to {location}: use that address as the base URL"
            return self._status_error(response.status_code, message, request), False, None
        try:
            message = error_message_of(response.read())
        except httpx.TransportError:
            message = "(the error body could not be read)"
        finally:
            response.close()
        status = response.status_code
        asked = retry_after_seconds(response.headers.get("retry-after")) if status == 429 else None
        retryable = status >= 500 or asked is not None
        return self._status_error(status, message, request), retryable, asked

    def _read_error(
        self, exc: Exception, sent: int, request: httpx.Request, deadline: Deadline
    ) -> LLMError:
        """The ragcore error for a reply that failed after ``sent`` characters had arrived."""
        if isinstance(exc, PastDeadline):
            return self._over_time_error(deadline, sent)
        if isinstance(exc, ReplyTooLarge):
            return LLMResponseError(exc.explain(self.describe(), request.method, request.url.path))
        if isinstance(exc, httpx.TimeoutException):
            return self._timeout_error(exc, sent, request, deadline)
        if isinstance(exc, (httpx.TransportError, StreamIncomplete)):
            return self._cut_off_error(exc, sent)
        if isinstance(exc, httpx.DecodingError):
            return self._undecodable_error(exc)
        if isinstance(exc, ServerStreamError):
            return LLMResponseError(
                f"{self.describe()} reported an error after {sent} characters of the reply: "
                f"{exc}. Check the server's logs; a smaller prompt or another model may help."
            )
        return LLMResponseError(
            f"{self.describe()} sent a reply ragcore cannot read ({exc}) after {sent} "
            f"characters. Check that the base URL points at the {self.kind} itself (not a "
            "proxy or a web page) and that the server is up to date."
        )

    def _status_error(self, status: int, message: str, request: httpx.Request) -> LLMStatusError:
        path = request.url.path
        hint = self.status_hint(status, message, path) if self.status_hint else ""
        if not hint:
            hint = STATUS_ADVICE.get(status, "")
        if not hint and status >= 500:
            hint = "The server failed while answering: check its logs, then retry."
        text = (
            f"{self.describe()} answered HTTP {status} to {request.method} {path}: "
            f"{message.rstrip('. ') or '(no message)'}. {hint}"
        )
        return LLMStatusError(text.strip(), status)

    def _connect_error(self, exc: Exception) -> LLMConnectionError:
        return LLMConnectionError(
            f"Could not connect to {self.describe()}: {exc or type(exc).__name__}. "
            f"{self.start_hint}"
        )

    def _timeout_error(
        self, exc: httpx.TimeoutException, sent: int, request: httpx.Request, deadline: Deadline
    ) -> LLMConnectionError:
        limits = request.extensions.get("timeout", {})
        if isinstance(exc, httpx.ConnectTimeout):
            return LLMConnectionError(
                f"Timed out connecting to {self.describe()} after {limits.get('connect')} s. "
                f"{self.start_hint}"
            )
        read = limits.get("read")
        if deadline.passed() or read == deadline.seconds:  # the wait was the whole time limit
            return self._over_time_error(deadline, sent)
        after = "" if not sent else f" (the reply stopped after {sent} characters)"
        return LLMTimeoutError(
            f"{self.describe()} did not answer within {read} s{after}. A local "
            "model may still be loading or be slow on this machine: raise the timeout "
            "(timeout=...) or check that the model is loaded and the server is not overloaded.",
            seconds=float(read or 0), received=sent,
        )

    def _over_time_error(self, deadline: Deadline, sent: int) -> LLMTimeoutError:
        arrived = f" ({sent} characters of the reply had arrived)" if sent else ""
        return LLMTimeoutError(
            f"{self.describe()} had not finished its reply when the time limit of "
            f"{deadline.seconds:g} s for one request ran out{arrived}; ragcore stopped "
            f"waiting. {self.slow_hint}",
            seconds=deadline.seconds, received=sent,
        )

    def _undecodable_error(self, exc: Exception) -> LLMResponseError:
        return LLMResponseError(
            f"{self.describe()} sent a body that could not be decoded ({exc}). Check that the "
            f"base URL points at the {self.kind} itself (not a proxy)."
        )

    def _cut_off_error(self, exc: Exception, sent: int) -> LLMConnectionError:
        return LLMConnectionError(
            f"The reply from {self.describe()} was cut off after {sent} characters "
            f"({exc or type(exc).__name__}). Retry; if it keeps happening, check the server's "
            "logs (it may have crashed or run out of memory)."
        )


def connect(
    kind: str,
    *,
    model: str,
    base_url: str,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_backoff: float,
    client: httpx.Client | None,
    start_hint: str,
    headers: dict[str, str] | None = None,
    status_hint: Callable[[Connection, int, str, str], str] | None = None,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    slow_hint: str | None = None,
) -> Connection:
    """A ``Connection`` with its URL and timeouts checked; ``status_hint`` also gets the
    connection (a backend's hint may ask the server which models it has)."""
    connection = Connection(
        kind=kind,
        base_url=check_base_url(base_url),
        model=model,
        timeout=make_timeout(timeout),
        max_retries=max_retries,
        retry_backoff=retry_backoff,
        headers=headers,
        client=client,
        start_hint=start_hint,
        request_timeout=request_timeout,
        slow_hint=slow_hint or SLOW_HINT,
    )
    if status_hint is not None:
        connection.status_hint = partial(status_hint, connection)
    return connection


def fetch_model_names(
    connection: Connection, path: str, read: Callable[[Any], list[str]], *, timeout: float
) -> list[str]:
    """The model names the server lists at ``path``: one GET, no retries, all within
    ``timeout`` seconds, read by ``read``."""
    data = connection.request_json("GET", path, timeout=make_timeout(timeout), max_retries=0,
                                   request_timeout=timeout)
    return read(data)
