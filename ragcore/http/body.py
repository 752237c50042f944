"""Reading a reply's body within its time limit and a size cap (used by ``http.Connection``).

httpx checks its timeouts per read, so a server that keeps a connection alive by sending one
byte now and then (a keep-alive drip) never trips them; and ``iter_lines`` hands on nothing until
a line ends, so a drip of spaces with no newline was never even seen by the deadline check.
Here every piece that arrives is checked against the ``Deadline`` (``PastDeadline`` once it has
passed) and counted against a cap: a reply or a line longer than the cap raises ``ReplyTooLarge``
instead of being kept in memory. A ``Content-Length`` over the cap is refused before reading.

Lines are split as ``str.splitlines`` (and httpx's ``iter_lines``) split them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .options import Deadline, PastDeadline

if TYPE_CHECKING:
    import httpx

# A reply read whole (model listings, embeddings, a non-streamed chat completion) may be this
# large unless the request says otherwise; a streamed reply's single line, the same.
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
# Bytes of JSON one embedding number may take ("-0.012345678901234567, " is 23), generously.
JSON_BYTES_PER_NUMBER = 32
# The widest embedding this cap allows for (the largest common models have 4,096 dimensions).
MAX_EMBEDDING_DIM = 8192

_NEWLINES = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


class ReplyTooLarge(Exception):
    """A reply (or one line of a streamed reply) went over ``limit`` bytes or characters."""

    def __init__(self, limit: int, what: str = "reply") -> None:
        self.limit = limit
        self.what = what
        super().__init__(f"{what} longer than {limit} bytes")

    def explain(self, server: str, method: str, path: str) -> str:
        return (
            f"{server} sent a {self.what} longer than {self.limit:,} bytes in answer to {method} "
            f"{path}; ragcore stopped reading it and kept none of it. Check that the base URL "
            "points at the server itself, and ask for less (a smaller batch, a shorter answer)."
        )


def embedding_reply_bytes(batch_size: int) -> int:
    """The largest reply accepted for ``batch_size`` texts: vectors of up to ``MAX_EMBEDDING_DIM``
    numbers at ``JSON_BYTES_PER_NUMBER`` each, plus 1 MB for the rest of the JSON."""
    return batch_size * MAX_EMBEDDING_DIM * JSON_BYTES_PER_NUMBER + 1024 * 1024


def read_body(response: httpx.Response, deadline: Deadline, max_bytes: int) -> bytes:
    """The whole (decoded) body, or ``PastDeadline``/``ReplyTooLarge`` as soon as either applies."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ReplyTooLarge(max_bytes)
    body = bytearray()
    for piece in deadline.within(response.iter_bytes()):
        body += piece
        if len(body) > max_bytes:
            raise ReplyTooLarge(max_bytes)
    return bytes(body)


def read_lines(response: httpx.Response, deadline: Deadline, max_line: int) -> Iterator[str]:
    """The body's lines as they arrive; the deadline is checked after every piece of text (a
    drip of spaces without a newline included), and a line over ``max_line`` characters raises
    ``ReplyTooLarge``."""
    buffer: list[str] = []
    buffered = 0
    trailing_cr = False
    for text in deadline.within(response.iter_text()):
        if trailing_cr:
            text, trailing_cr = "\r" + text, False
        if text.endswith("\r"):
            text, trailing_cr = text[:-1], True
        if not text:
            continue
        lines = text.splitlines()
        ended = text[-1] in _NEWLINES
        if len(lines) == 1 and not ended:  # no line ends in this piece: keep it for later
            buffer.append(text)
            buffered += len(text)
            if buffered > max_line:
                raise ReplyTooLarge(max_line, "line")
            continue
        if buffer:
            lines[0] = "".join(buffer) + lines[0]
            buffer, buffered = [], 0
        if not ended:
            rest = lines.pop()
            buffer, buffered = [rest], len(rest)
        for line in lines:
            if len(line) > max_line:
                raise ReplyTooLarge(max_line, "line")
            yield line
    if buffer or trailing_cr:
        yield "".join(buffer)


__all__ = ["DEFAULT_MAX_BODY_BYTES", "PastDeadline", "ReplyTooLarge", "embedding_reply_bytes",
           "read_body", "read_lines"]
