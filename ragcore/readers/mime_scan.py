"""An e-mail message cut down as it is read: what ``email_message`` indexes, nothing else held.

The standard library's parser holds every part whole (a 100 MB attachment cost 1.2 GB to index
142 characters) and recurses once per nested multipart. ``reduce_message`` reads the file a line
(at most 64 KB) at a time and writes a smaller message with the same structure: every part's
headers (attachments are listed by name and type), the bodies of the parts that can be the text
(text/plain or text/html, not marked as attachments), and the boundary lines; other bodies,
preambles and epilogues are read past. The reduced message is then parsed as usual. Nesting is
followed with a stack of boundaries, so a message nested too deep is refused with a clear reason.
"""

from __future__ import annotations

import io
from email import policy
from email.parser import BytesHeaderParser
from pathlib import Path
from typing import BinaryIO, Iterator

from ragcore.errors import ReaderError

MAX_NESTING = 50  # multipart levels (real mail nests 3 or 4; the parser recurses per level)
MAX_HEADER_BYTES = 1 << 20  # one part's header block
_LINE_BYTES = 1 << 16  # a longer line is read in pieces of this size
_TEXT_TYPES = ("text/plain", "text/html")

Pieces = Iterator[tuple[bytes, bool]]  # a line or a piece of a long one; starts a line?


def reduce_message(path: Path, source: BinaryIO) -> bytes:
    """The message in ``source`` without the bodies ``email_message`` does not read."""
    out = io.BytesIO()
    boundaries: list[bytes] = []  # of the open multiparts, outermost first
    pieces = _pieces(source)
    keep = _part(path, pieces, out, boundaries)
    for piece, starts_line in pieces:
        found = _boundary(piece, boundaries) if starts_line and piece[:2] == b"--" else None
        if found is None:
            if keep:
                out.write(piece)
            continue
        depth, closing = found
        del boundaries[depth + 1 :]  # a boundary of an outer part ends the inner ones too
        out.write(piece if piece.endswith(b"\n") else piece + b"\n")
        if closing:  # what follows is the epilogue, never read
            boundaries.pop()
            keep = False
        else:
            keep = _part(path, pieces, out, boundaries)
    return out.getvalue()


def _pieces(source: BinaryIO) -> Pieces:
    starts_line = True
    while piece := source.readline(_LINE_BYTES):
        yield piece, starts_line
        starts_line = piece.endswith(b"\n")


def _boundary(piece: bytes, boundaries: list[bytes]) -> tuple[int, bool] | None:
    """(depth, closing) when ``piece`` is a boundary line of an open multipart, innermost
    first (trailing spaces are transport padding)."""
    line = piece.rstrip(b" \t\r\n")
    for depth in range(len(boundaries) - 1, -1, -1):
        mark = b"--" + boundaries[depth]
        if line == mark or line == mark + b"--":
            return depth, line != mark
    return None


def _part(path: Path, pieces: Pieces, out: io.BytesIO, boundaries: list[bytes]) -> bool:
    """Copy a part's headers to ``out``; returns whether its body is kept (pushes the boundary
    of a multipart, whose preamble is not kept)."""
    header = _header_block(path, pieces)
    out.write(header)
    headers = BytesHeaderParser(policy=policy.compat32).parsebytes(header)
    if headers.get_content_maintype() == "multipart":
        boundary = headers.get_boundary()
        if boundary is None:  # unreadable as a multipart: the parser would not find parts
            return False
        if len(boundaries) >= MAX_NESTING:
            raise ReaderError(
                path, f"nests multipart sections more than {MAX_NESTING} levels deep (no mail "
                "program writes that; it looks made to break readers)",
                "open it in a mail program and save or forward the text, or leave it out")
        boundaries.append(boundary.encode("ascii", "surrogateescape"))
        return False
    return (headers.get_content_type() in _TEXT_TYPES
            and headers.get_content_disposition() != "attachment")


def _header_block(path: Path, pieces: Pieces) -> bytes:
    """A part's header lines up to and with the blank line that ends them."""
    block = bytearray()
    for piece, starts_line in pieces:
        block += piece
        if starts_line and piece in (b"\n", b"\r\n"):
            break
        if len(block) > MAX_HEADER_BYTES:
            raise ReaderError(
                path, f"has a header block over {MAX_HEADER_BYTES // 1_000_000} MB: it is not "
                "an e-mail message, or a damaged one",
                "save the message from your mail program as .eml (or upload it as .txt)")
    return bytes(block)
