"""The two server kinds ragcore speaks to, shared by its LLM and embedding backends.

What is particular to an Ollama server or an OpenAI-compatible one but not to chatting or
embedding lives here: where the server usually is, how to open a ``Connection`` to it (its start
hint, the API key header, the advice added to its 401, 403 and 404 errors) and how it lists its
models. The chat backends (``ragcore.llms.ollama``/``openai``) and the embedders
(``ragcore.embeddings.ollama``/``openai``) both build on it, so neither imports the other.
Every connection carries an overall time limit per request (``request_timeout``); a backend
may pass the advice its users need when a reply outlasts it (``slow_hint``).

Importing this module is free: httpx loads with ``ragcore.http.client`` on the first connection, so
the backend registries can read the default URLs without paying for it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, LLMError, LLMResponseError
from .options import DEFAULT_REQUEST_TIMEOUT

if TYPE_CHECKING:
    import httpx

    from .client import Connection

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"
OLLAMA_START_HINT = "Start Ollama (`ollama serve`, or open the Ollama app) or check the base URL."
OPENAI_START_HINT = (
    "Check that the server is running and that the base URL is right (it usually ends in /v1)."
)
LIST_TIMEOUT = 5.0


def ollama_url() -> str:
    """Where Ollama is when nothing else says: ``OLLAMA_HOST`` (as the ``ollama`` client and
    server read it, "host:port" or a URL), else ``DEFAULT_OLLAMA_URL``."""
    host = os.environ.get("OLLAMA_HOST", "").strip()
    if not host:
        return DEFAULT_OLLAMA_URL
    return host if "://" in host else f"http://{host}"


# -- Ollama -----------------------------------------------------------------------------------


def ollama_model_names(data: Any) -> list[str]:
    """The model names in an ``/api/tags`` reply: ``{"models": [{"name": ...}, ...]}``."""
    if not isinstance(data, dict) or not isinstance(data.get("models"), list):
        raise LLMResponseError(
            f'/api/tags answered {str(data)[:200]!r}, not {{"models": [...]}}: is this Ollama?'
        )
    return [m.get("name") or m.get("model", "") for m in data["models"] if isinstance(m, dict)]


def ollama_connection(
    *,
    model: str,
    base_url: str,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_backoff: float,
    client: httpx.Client | None,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    slow_hint: str | None = None,
) -> Connection:
    """A ``Connection`` to an Ollama server whose 404s for a missing model list its models."""
    from .client import connect

    return connect(
        "Ollama", model=model, base_url=base_url, timeout=timeout, max_retries=max_retries,
        retry_backoff=retry_backoff, client=client, start_hint=OLLAMA_START_HINT,
        status_hint=_missing_model_hint, request_timeout=request_timeout, slow_hint=slow_hint,
    )


_OLLAMA_ACCESS_HINT = (
    "Ollama itself does not use API keys, so a proxy or gateway in front of it refused the "
    "request: check that proxy's credentials or access rules, or point base_url straight at "
    "Ollama (http://127.0.0.1:11434)."
)


def _missing_model_hint(connection: Connection, status: int, message: str, path: str) -> str:
    from .client import fetch_model_names

    if status in (401, 403):
        return _OLLAMA_ACCESS_HINT
    text = message.lower()
    if status != 404 or path == "/api/tags" or "model" not in text or "not found" not in text:
        return ""
    pull = f"`ollama pull {connection.model}`"
    try:
        names = fetch_model_names(
            connection, "/api/tags", ollama_model_names,
            timeout=min(connection.timeout.read or LIST_TIMEOUT, LIST_TIMEOUT),
        )
    except LLMError:
        return f"Pull the model with {pull}."
    if not names:
        return f"This server has no models yet: pull one with {pull}."
    return f"Models on this server: {', '.join(names)}. Pull it with {pull} or use one of those."


def list_ollama_models(
    base_url: str = DEFAULT_OLLAMA_URL,
    *,
    timeout: float = LIST_TIMEOUT,
    client: httpx.Client | None = None,
) -> list[str]:
    """The names of the models an Ollama server has pulled (``GET /api/tags``), no retries."""
    from .client import fetch_model_names

    connection = ollama_connection(
        model="", base_url=base_url, timeout=timeout, max_retries=0, retry_backoff=0.0,
        client=client, request_timeout=timeout,
    )
    return fetch_model_names(connection, "/api/tags", ollama_model_names, timeout=timeout)


# -- OpenAI-compatible -------------------------------------------------------------------------


def openai_model_names(data: Any) -> list[str]:
    """The model ids in a ``GET /models`` reply: ``{"data": [{"id": ...}, ...]}``."""
    if not isinstance(data, dict) or not isinstance(data.get("data"), list):
        raise LLMResponseError(f"/models answered {str(data)[:200]!r}, not {{'data': [...]}}")
    return [m["id"] for m in data["data"] if isinstance(m, dict) and "id" in m]


def openai_connection(
    *,
    model: str,
    base_url: str,
    api_key: str | None,
    timeout: float | httpx.Timeout,
    max_retries: int,
    retry_backoff: float,
    client: httpx.Client | None,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    slow_hint: str | None = None,
) -> Connection:
    """A ``Connection`` to an OpenAI-compatible server, sending the API key when there is one.

    Without ``api_key`` the ``OPENAI_API_KEY`` environment variable is used; OpenAI itself
    (the default URL) is refused without a key, before any request.
    """
    from .client import check_base_url, connect

    base_url = check_base_url(base_url)
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    if not key and base_url == DEFAULT_OPENAI_URL:
        raise ConfigError(
            "OpenAI needs an API key: set OPENAI_API_KEY or pass api_key=... "
            "(or pass base_url= for a local OpenAI-compatible server)"
        )
    return connect(
        "OpenAI-compatible server", model=model, base_url=base_url, timeout=timeout,
        max_retries=max_retries, retry_backoff=retry_backoff, client=client,
        start_hint=OPENAI_START_HINT,
        headers={"Authorization": f"Bearer {key}"} if key else None, status_hint=_status_hint,
        request_timeout=request_timeout, slow_hint=slow_hint,
    )


def _status_hint(connection: Connection, status: int, message: str, path: str) -> str:
    from .client import fetch_model_names

    if status == 401:
        sent = connection.headers is not None
        return ("The server rejected the API key: check OPENAI_API_KEY or api_key=." if sent
                else "The server needs an API key: set OPENAI_API_KEY or pass api_key=.")
    if status != 404 or path.endswith("/models") or "model" not in message.lower():
        return ""
    try:
        names = fetch_model_names(connection, "/models", openai_model_names, timeout=LIST_TIMEOUT)
    except LLMError:
        return "Check the model name."
    return f"Models on this server: {', '.join(names) or '(none)'}."


def list_openai_models(
    base_url: str = DEFAULT_OPENAI_URL,
    api_key: str | None = None,
    *,
    timeout: float = LIST_TIMEOUT,
    client: httpx.Client | None = None,
) -> list[str]:
    """The model ids an OpenAI-compatible server offers (``GET /models``), no retries."""
    from .client import fetch_model_names

    connection = openai_connection(
        model="", base_url=base_url, api_key=api_key, timeout=timeout, max_retries=0,
        retry_backoff=0.0, client=client, request_timeout=timeout,
    )
    return fetch_model_names(connection, "/models", openai_model_names, timeout=timeout)
