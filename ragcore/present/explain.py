"""Errors in plain words: what went wrong and what to do about it, for people, not programmers.

The app shows these instead of tracebacks (the traceback goes to the log). Each ragcore error
already names the bad value; this adds the next step a user can take in the app.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import (
    AccessDenied,
    ChunkingError,
    ConfigError,
    EmbeddingError,
    IndexFormatError,
    LLMConnectionError,
    LLMError,
    LLMResponseError,
    LLMStatusError,
    LLMTimeoutError,
    PersistError,
    RagcoreError,
    ReaderError,
    StoreError,
    ToolError,
    WorkspaceError,
)
logger = logging.getLogger(__name__)

_OS_ERROR = re.compile(r"\[Errno -?\d+\]\s*")
_SWITCH_BACKEND = (
    "or choose Extractive (offline) on the Settings page to answer without a server."
)


@dataclass(frozen=True, slots=True)
class Explanation:
    """A readable error: ``message`` says what happened, in plain text (an error's own words,
    shown as written: ``format.literal_markdown`` before Markdown draws it); ``action`` what to
    do next, in Markdown (`ollama serve`)."""

    message: str
    action: str = ""

    def __str__(self) -> str:
        return f"{self.message} {self.action}".strip()


def explain_error(exc: BaseException) -> Explanation:
    """Turn any exception into an Explanation (and log the traceback for the operator)."""
    if isinstance(exc, (RagcoreError, OSError)):
        logger.info("explained to the user: %s", exc)
    else:
        logger.warning("unexpected error explained to the user: %s", exc, exc_info=exc)
    for kind, explain in _EXPLAINERS:
        if isinstance(exc, kind):
            return explain(exc)
    return Explanation(
        f"Something unexpected went wrong ({type(exc).__name__}: {exc}).",
        "Try again; if it keeps happening, restart the app and report the message above.",
    )


def explain_reader_error(exc: ReaderError) -> Explanation:
    name = Path(exc.path).name or exc.path
    action = exc.hint or "Check that the file opens on your computer, then upload it again."
    return Explanation(f"{name}: {_sentence(exc.problem)}", _sentence(action))


def _llm_connection(exc: LLMConnectionError) -> Explanation:
    # The OS error number ("[Errno 111]") means nothing to a reader; the hint must be the one
    # for the server configured (an OpenAI-compatible server is not started with Ollama).
    said = _OS_ERROR.sub("", str(exc)).strip()
    if "ollama serve" in said or "openai" in said.lower():
        start = ""
    else:
        start = " (for Ollama: `ollama serve`)"
    return Explanation(
        f"The answering server could not be reached. {_sentence(said)}",
        f"Check that it is running{start} and that its address on the Settings page is right, "
        f"{_SWITCH_BACKEND}",
    )


def _llm_timeout(exc: LLMTimeoutError) -> Explanation:
    return Explanation(
        f"The answering server took too long ({exc}).",
        "On the Settings page, raise its time limit per reply, lower its reply cap, or choose a "
        f"smaller model, {_SWITCH_BACKEND}",
    )


def _llm_status(exc: LLMStatusError) -> Explanation:
    code = exc.status_code
    if code == 404:
        action = (
            "The model may not exist on that server: pick one from the list on the Settings "
            "page (for Ollama, `ollama pull MODEL` first)."
        )
    elif code in (401, 403):
        action = "Check the API key on the Settings page."
    elif code == 429:
        action = "The server is busy or your quota is used up: wait a moment and retry."
    elif code >= 500:
        action = f"The server failed while answering: retry in a moment, {_SWITCH_BACKEND}"
    else:
        action = f"Check the model and address on the Settings page, {_SWITCH_BACKEND}"
    return Explanation(f"The answering server refused the request (HTTP {code}: {exc}).", action)


def _llm_response(exc: LLMResponseError) -> Explanation:
    return Explanation(
        f"The answering server sent a reply that could not be understood ({exc}).",
        "Check that the kind of server chosen on the Settings page matches it (Ollama or "
        f"OpenAI-compatible), {_SWITCH_BACKEND}",
    )


def _llm_other(exc: LLMError) -> Explanation:
    return Explanation(f"The answering model failed ({exc}).", f"Retry, {_SWITCH_BACKEND}")


def _embedding(exc: EmbeddingError) -> Explanation:
    return Explanation(
        f"The embedding model failed ({exc}).",
        "Check the embedding model on the Settings page; the packaged model always works offline.",
    )


def _index_format(exc: IndexFormatError) -> Explanation:
    return Explanation(
        f"An index folder is damaged or was written by a newer version ({exc}).",
        "Delete the index on the Indexes page and upload its documents again.",
    )


def _persist(exc: PersistError) -> Explanation:
    return Explanation(
        f"An index could not be saved or loaded ({exc}).",
        "Check that the workspace folder (Settings page) exists, is writable and has free space.",
    )


def _chunking(exc: ChunkingError) -> Explanation:
    return Explanation(
        f"The documents could not be split into passages ({exc}).",
        "Raise the passage size under 'Advanced: how documents are split' on the Upload page "
        "and try again.",
    )


def _config(exc: ConfigError) -> Explanation:
    return Explanation(f"A setting is not valid: {exc}.", "Correct it on the Settings page.")


def _workspace(exc: WorkspaceError) -> Explanation:
    return Explanation(f"{_sentence(str(exc))}", "")


def _store(exc: StoreError) -> Explanation:
    return Explanation(
        f"The index's store rejected the operation ({exc}).",
        "Re-index the affected documents on the Indexes page.",
    )


def _tool(exc: ToolError) -> Explanation:
    return Explanation(f"A tool of the agent failed ({exc}).", "Retry, or pick another chat mode.")


def _os_error(exc: OSError) -> Explanation:
    return Explanation(
        f"A file could not be read or written ({exc}).",
        "Check that the workspace folder exists, is writable and that the disk is not full.",
    )


def _access_denied(exc: AccessDenied) -> Explanation:
    # the policy's words already say what to do, and name nothing the person may not see
    return Explanation(f"Not allowed: {_sentence(str(exc))}", "")


def _sentence(text: str) -> str:
    """Capitalize and end with a full stop, so messages read as sentences."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?", ")")) else f"{text}."


# Most specific first: subclasses before their bases.
_EXPLAINERS = (
    (ReaderError, explain_reader_error),
    (AccessDenied, _access_denied),
    (LLMTimeoutError, _llm_timeout),
    (LLMConnectionError, _llm_connection),
    (LLMStatusError, _llm_status),
    (LLMResponseError, _llm_response),
    (LLMError, _llm_other),
    (EmbeddingError, _embedding),
    (IndexFormatError, _index_format),
    (PersistError, _persist),
    (ChunkingError, _chunking),
    (ConfigError, _config),
    (WorkspaceError, _workspace),
    (StoreError, _store),
    (ToolError, _tool),
    (OSError, _os_error),
)
