"""The options every HTTP backend (LLM or embedder) takes, checked in its ``__init__``.

Each check raises ``ConfigError`` naming the bad value and what to pass instead, so a backend
fails where it is built rather than at its first request. ``http`` uses the URL, timeout and
retry checks for every ``Connection``; the backends use the rest for their own options.

Two time limits apply to every request. ``timeout`` bounds each wait: connecting, and each read
(the first token of a local model being loaded can take minutes). ``request_timeout`` bounds the
whole request, first byte to last: a model that keeps producing tokens never trips a per-read
timeout, so only this stops a reply that would otherwise run to the end of the context window.
A ``Deadline`` is that limit for one request, as ``http.Connection`` applies it. Importing this
module costs no httpx (the backend registries read its defaults).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Iterator
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

from ..errors import ConfigError

if TYPE_CHECKING:
    import httpx

# Connecting is quick even to a remote server; the first token of a local model that must first be
# loaded into memory can take minutes on a laptop CPU, so reads get a generous default.
CONNECT_TIMEOUT = 5.0
# The whole of one request: time for a cold local model to load and write a capped reply on a CPU.
DEFAULT_REQUEST_TIMEOUT = 600.0


def check_base_url(base_url: str) -> str:
    """The base URL without a trailing slash; a ConfigError if it is not an http(s) URL."""
    parts = urlsplit(base_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"base_url {base_url!r} is not an http(s) URL: use e.g. 'http://127.0.0.1:11434'"
        )
    return base_url.strip().rstrip("/")


def make_timeout(timeout: float | httpx.Timeout) -> httpx.Timeout:
    """A float is the read timeout in seconds; connecting gets at most ``CONNECT_TIMEOUT``."""
    import httpx

    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ConfigError(f"timeout ({timeout!r}) must be a positive number of seconds")
    return httpx.Timeout(float(timeout), connect=min(float(timeout), CONNECT_TIMEOUT))


def check_request_timeout(request_timeout: float) -> float:
    """The overall time limit of one request, in seconds; ConfigError unless it is positive."""
    if (isinstance(request_timeout, bool) or not isinstance(request_timeout, (int, float))
            or not (request_timeout > 0 and math.isfinite(request_timeout))):
        raise ConfigError(
            f"request_timeout ({request_timeout!r}) must be a positive number of seconds: the "
            f"most one whole reply may take (default {DEFAULT_REQUEST_TIMEOUT:g})"
        )
    return float(request_timeout)


def check_retries(max_retries: int, retry_backoff: float) -> None:
    if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
        raise ConfigError(f"max_retries ({max_retries!r}) must be an integer >= 0")
    if retry_backoff < 0:
        raise ConfigError(f"retry_backoff ({retry_backoff!r}) must be >= 0 seconds")


# Advice added to an HTTP error status when the backend gives none of its own.
STATUS_ADVICE = {
    400: "The server rejected the request: check the model's options.",
    401: "The server refused the request's credentials: check the API key, if it takes one.",
    403: "The server does not allow this request: check the key's access or the server's rules.",
    404: "Check the model name and the base URL.",
    429: "The server is rate limiting or out of quota: wait and retry, or check your plan.",
}

def reply_char_limit(num_output: int) -> int:
    """Characters an LLM reply may reach before it is cut: 16 per output token, at least 64k."""
    return max(64_000, 16 * num_output)


def retry_after_seconds(value: str | None) -> float | None:
    """Seconds a Retry-After header asks for (a number or an HTTP date), or None if unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - datetime.now(timezone.utc)).total_seconds()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def check_model(model: str) -> str:
    if not isinstance(model, str) or not model.strip():
        raise ConfigError(f"model ({model!r}) must be a model name such as 'llama3.1'")
    return model.strip()


def check_positive(name: str, value: int | None, *, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{name} ({value!r}) must be a positive integer")


def check_window(context_window: int, num_output: int) -> None:
    check_positive("context_window", context_window)
    check_positive("num_output", num_output)
    if num_output >= context_window:
        raise ConfigError(
            f"num_output ({num_output}) must be smaller than context_window ({context_window}):"
            " it is the part of the window kept free for the reply"
        )


def check_temperature(temperature: float | None) -> None:
    if temperature is None:
        return
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not (
        0 <= temperature <= 2
    ):
        raise ConfigError(f"temperature ({temperature!r}) must be a number from 0 to 2, or None")


# -- the time limit of one request -------------------------------------------------------------


class PastDeadline(Exception):
    """Raised between reads once a request's time limit has run out (not a ValueError: the
    decoders let it through)."""


@dataclass(slots=True, frozen=True)
class Deadline:
    """The overall time limit of one request: ``seconds`` long, ending at ``ends`` (monotonic)."""

    seconds: float
    ends: float

    @classmethod
    def start(cls, seconds: float) -> Deadline:
        return cls(seconds, time.monotonic() + seconds)

    def left(self) -> float:
        return self.ends - time.monotonic()

    def passed(self) -> bool:
        return self.left() <= 0

    def within(self, pieces: Iterable[Any]) -> Iterator[Any]:
        """``pieces`` as they arrive; once the time is up, ``PastDeadline`` instead of waiting
        for the next one (a piece that has arrived is always handed on)."""
        for piece in pieces:
            yield piece
            if self.passed():
                raise PastDeadline

    def bound(self, timeout: httpx.Timeout) -> httpx.Timeout:
        """``timeout`` with no single read waiting longer than the whole time limit."""
        import httpx

        read = self.seconds if timeout.read is None else min(timeout.read, self.seconds)
        return httpx.Timeout(connect=timeout.connect, read=read, write=timeout.write,
                             pool=timeout.pool)
