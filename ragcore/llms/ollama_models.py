"""The models of a local Ollama: what it holds (``GET /api/tags``) and downloads (``/api/pull``).

Where ``ollama`` chats with a model that is already there, this module finds what a server holds
and pulls more, for the Settings page. ``POST /api/pull`` answers with newline-delimited JSON:
``{"status": "pulling manifest"}``, then per layer ``{"status": "pulling 6a0746a1ec1a", "digest":
"sha256:...", "total": N, "completed": M}`` many times, ``{"status": "verifying sha256 digest"}``,
``{"status": "writing manifest"}`` and ``{"status": "success"}``; a failure is an ``{"error":
"..."}`` line (or an HTTP error, or a connection that breaks). ``decode_pull_stream`` is the one
pure decoder of that stream; ``pull_ollama_model`` is its thin driver over an injectable
``httpx.Client``, raising errors that say in plain words what failed, how far the download got,
and what to do. Closing the driver's generator cancels the download (the connection is closed,
and Ollama stops; a later pull continues from the layers it kept).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import httpx

from ..errors import LLMConnectionError, LLMError, LLMResponseError, LLMStatusError
from ..http.client import (
    ServerStreamError, StreamFormatError, StreamIncomplete, error_message_of, is_loopback,
)
from ..http.body import DEFAULT_MAX_BODY_BYTES, read_lines
from ..http.options import Deadline, PastDeadline, check_base_url, check_model, make_timeout
from ..http.servers import DEFAULT_OLLAMA_URL, LIST_TIMEOUT, OLLAMA_START_HINT, ollama_connection
from .ollama import ollama_stream_objects

# Ollama reports progress every fraction of a second; a minute of silence means it is stuck.
PULL_READ_TIMEOUT = 60.0
PULL_TIME_LIMIT = 24 * 3600.0  # a 40 GB model on a slow line; the person can stop it any time
LIBRARY_HINT = "Check the name at https://ollama.com/library (for example llama3.2:1b)."
AGAIN = "then download again: Ollama continues where it stopped."
RETRY_HINT = ("Check the internet connection and the free disk space of the computer running "
              f"Ollama, {AGAIN}")


@dataclass(slots=True, frozen=True)
class OllamaModel:
    """One model an Ollama server holds, as ``/api/tags`` describes it."""

    name: str
    size: int = 0  # bytes on disk
    parameters: str = ""  # "8.0B"
    quantization: str = ""  # "Q4_0"
    family: str = ""


@dataclass(slots=True, frozen=True)
class PullProgress:
    """Where a download stands: Ollama's status and the bytes of the layers announced so far."""

    status: str
    completed: int = 0
    total: int = 0
    done: bool = False

    @property
    def fraction(self) -> float | None:
        """Bytes done over bytes announced (0..1), or None before any layer is announced."""
        return min(self.completed / self.total, 1.0) if self.total else None


def parse_ollama_tags(data: Any) -> list[OllamaModel]:
    """The models in an ``/api/tags`` reply (``{"models": [{"name", "size", "details"}]}``)."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise LLMResponseError(
            f'/api/tags answered {str(data)[:200]!r}, not {{"models": [...]}}: is this Ollama?')
    models = []
    for entry in data["models"]:
        if not isinstance(entry, dict):
            continue
        details = entry.get("details") if isinstance(entry.get("details"), dict) else {}
        size = entry.get("size")
        models.append(OllamaModel(
            name=str(entry.get("name") or entry.get("model") or ""),
            size=size if isinstance(size, int) else 0,
            parameters=str(details.get("parameter_size") or ""),
            quantization=str(details.get("quantization_level") or ""),
            family=str(details.get("family") or ""),
        ))
    return models


def decode_pull_stream(lines: Iterable[str]) -> Iterator[PullProgress]:
    """Yield the progress of each NDJSON line of an ``/api/pull`` stream until ``success``."""
    layers: dict[str, tuple[int, int]] = {}  # digest -> (completed, total)
    for line, data in ollama_stream_objects(lines):
        status = data.get("status")
        if not isinstance(status, str):
            raise StreamFormatError('a line without "status"', line)
        total, completed = data.get("total"), data.get("completed") or 0
        if data.get("digest") and isinstance(total, int) and isinstance(completed, int):
            layers[str(data["digest"])] = (min(completed, total), total)
        done = status == "success"
        yield PullProgress(status, sum(c for c, _ in layers.values()),
                           sum(t for _, t in layers.values()), done)
        if done:
            return
    raise StreamIncomplete('the download stream ended before {"status": "success"}')


def list_ollama_models_detailed(base_url: str = DEFAULT_OLLAMA_URL, *,
                                timeout: float = LIST_TIMEOUT,
                                client: httpx.Client | None = None) -> list[OllamaModel]:
    """The models an Ollama server holds, with sizes (``GET /api/tags``, no retries).

    ``LLMConnectionError`` (with how to start Ollama) when nothing answers at ``base_url``.
    """
    connection = ollama_connection(
        model="", base_url=base_url, timeout=timeout, max_retries=0, retry_backoff=0.0,
        client=client, request_timeout=timeout)
    return parse_ollama_tags(connection.request_json(
        "GET", "/api/tags", timeout=make_timeout(timeout), max_retries=0,
        request_timeout=timeout))


def pull_ollama_model(model: str, base_url: str = DEFAULT_OLLAMA_URL, *,
                      client: httpx.Client | None = None,
                      read_timeout: float = PULL_READ_TIMEOUT) -> Iterator[PullProgress]:
    """Download ``model`` into the Ollama at ``base_url``, yielding its progress as it goes.

    Close the generator to stop the download. A failure raises an ``LLMError`` saying what
    failed, how far the download got, and what to do.
    """
    model, base_url = check_model(model), check_base_url(base_url)
    http = client or httpx.Client(trust_env=not is_loopback(base_url))
    last = PullProgress("starting")
    deadline = Deadline.start(PULL_TIME_LIMIT)
    try:
        with http.stream("POST", f"{base_url}/api/pull", json={"model": model, "stream": True},
                         timeout=make_timeout(read_timeout)) as response:
            if response.status_code >= 300:
                raise _refused(model, base_url, response)
            lines = read_lines(response, deadline, DEFAULT_MAX_BODY_BYTES)
            for last in decode_pull_stream(lines):
                yield last
    except (httpx.HTTPError, PastDeadline, StreamIncomplete, ServerStreamError,
            StreamFormatError) as exc:
        raise pull_failure(model, base_url, last, exc) from exc
    finally:
        if client is None:
            http.close()


def pull_failure(model: str, base_url: str, last: PullProgress, exc: Exception) -> LLMError:
    """The error for a download of ``model`` that ended with ``exc`` after ``last``."""
    where = f"Ollama at {base_url}"
    if isinstance(exc, ServerStreamError):
        advice = LIBRARY_HINT if _unknown_model(str(exc)) else RETRY_HINT
        return LLMResponseError(f"{where} could not download {model}{_how_far(last)}: {exc}. "
                                f"{advice}")
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
        return LLMConnectionError(f"Could not reach {where} to download {model} ({exc}). "
                                  f"{OLLAMA_START_HINT}")
    if isinstance(exc, StreamFormatError):
        return LLMResponseError(f"{where} sent a download progress ragcore cannot read ({exc}). "
                                "Check that the address points at Ollama itself and that "
                                "Ollama is up to date.")
    broke = "went silent" if isinstance(exc, httpx.TimeoutException) else "broke off"
    return LLMConnectionError(
        f"The download of {model} from {where} {broke}{_how_far(last)} "
        f"({exc or type(exc).__name__}). Check that Ollama is still running and online, {AGAIN}")


def _refused(model: str, base_url: str, response: httpx.Response) -> LLMStatusError:
    message = error_message_of(response.read()) or "(no message)"
    advice = LIBRARY_HINT if _unknown_model(message) else RETRY_HINT
    return LLMStatusError(
        f"Ollama at {base_url} refused to download {model} (HTTP {response.status_code}: "
        f"{message.rstrip('. ')}). {advice}", response.status_code)


def _unknown_model(message: str) -> bool:
    text = message.lower()
    return "does not exist" in text or "not found" in text or "invalid model name" in text


def _how_far(last: PullProgress) -> str:
    if last.fraction is None:
        return ""
    return (f" after {last.completed / 1e9:.2f} GB of {last.total / 1e9:.2f} GB "
            f"({last.fraction:.0%})")
