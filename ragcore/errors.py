"""The ragcore exception tree. Every error says what went wrong, where, and what to do.

    RagcoreError
    ├── ConfigError           a bad option or setting (also a ValueError)
    │   └── PromptTooLongError  the system prompt and question alone overflow the window
    ├── ReaderError           a file could not be read (carries the path)
    ├── ChunkingError         text or metadata cannot fit the chunk budget
    ├── EmbeddingError        the embedding model or server failed
    ├── StoreError            the vector store rejected an operation
    ├── PersistError          an index folder could not be written or read
    │   └── IndexFormatError  a folder that is not ours, newer, or damaged
    ├── LLMError              a language-model server failed
    │   ├── LLMConnectionError  refused, reset, timed out connecting
    │   │   └── LLMTimeoutError   a reply outlasted its time limit (silent, or too long)
    │   ├── LLMStatusError      the server answered with an HTTP error
    │   └── LLMResponseError    the reply could not be decoded
    ├── ToolError             a tool is badly defined or was called badly
    ├── WorkspaceError        a named index, upload or chat in the workspace
    ├── AccessDenied          team mode: this person may not do that to that object
    └── LoginRefused          team mode: a wrong password, a disabled account, a lockout
"""

from __future__ import annotations

from pathlib import Path


class RagcoreError(Exception):
    """Base of every error ragcore raises on purpose."""


class ConfigError(RagcoreError, ValueError):
    """An option or setting has a bad value."""


class PromptTooLongError(ConfigError):
    """A prompt's fixed parts (system prompt, the user's message) and the reply reserve do not fit
    the model's context window; nothing flexible is left to cut."""


class ReaderError(RagcoreError):
    """A file could not be turned into documents."""

    def __init__(self, path: str | Path, problem: str, hint: str = "") -> None:
        self.path = str(path)
        self.problem = problem
        self.hint = hint
        message = f"{self.path}: {problem}"
        super().__init__(f"{message}. {hint}" if hint else message)


class ChunkingError(RagcoreError):
    """Text or metadata does not fit the configured chunk budget."""


class EmbeddingError(RagcoreError):
    """The embedding model or embedding server failed."""


class StoreError(RagcoreError):
    """The vector store rejected an operation."""


class PersistError(RagcoreError):
    """An index folder could not be written or read."""


class IndexFormatError(PersistError):
    """A folder that is not a ragcore index, is from a newer format, or is damaged."""


class LLMError(RagcoreError):
    """A language-model backend failed."""


class LLMConnectionError(LLMError):
    """The server could not be reached, reset the connection or timed out."""


class LLMTimeoutError(LLMConnectionError):
    """The server was reached but its reply took too long: it fell silent for longer than the
    read timeout, or was still coming when the request's overall time limit ran out.

    ``seconds`` is the limit that ran out; ``received`` how many characters of the reply had
    arrived (those were already handed to the caller).
    """

    def __init__(self, message: str, *, seconds: float, received: int = 0) -> None:
        self.seconds = seconds
        self.received = received
        super().__init__(message)


class LLMStatusError(LLMError):
    """The server answered with an HTTP error status."""

    def __init__(self, message: str, status_code: int) -> None:
        self.status_code = status_code
        super().__init__(message)


class LLMResponseError(LLMError):
    """The server's reply could not be decoded."""


class ToolError(RagcoreError):
    """A tool is badly defined or was called with bad arguments."""


class WorkspaceError(RagcoreError):
    """A named index, upload, setting or chat in the workspace is missing or invalid."""


class AccessDenied(RagcoreError):
    """Team mode: the signed-in person may not do this to this object (``workspace.access``).

    The message names the action and what to do (ask the owner to share it), never the object's
    name when the person may not see it.
    """


class LoginRefused(RagcoreError):
    """Team mode: a sign-in was refused (wrong name or password, a disabled account, or too many
    failed attempts); ``retry_after`` is the seconds left of a lockout (0 when not locked)."""

    def __init__(self, message: str, *, retry_after: float = 0.0) -> None:
        self.retry_after = retry_after
        super().__init__(message)
