"""Bytes to text: reading a file safely, detecting its encoding, and refusing binary junk.

Every text-based reader (plain text, Markdown, HTML, CSV, JSON, notebooks) reads through here, so
they all fail the same way on an empty, unreadable or binary file. UTF-8 (with or without BOM)
and BOM-marked UTF-16/32 are decoded directly; anything else is detected with charset-normalizer
(imported only when needed). Among equally plausible single-byte encodings cp1252 is preferred:
it is by far the most common legacy encoding of Western text, and the detector otherwise tends to
pick a sibling (cp1250, cp1257) that garbles accented letters.
"""

from __future__ import annotations

import codecs
import logging
import os
import re
from pathlib import Path
from typing import Any, BinaryIO

from ragcore.errors import ReaderError

logger = logging.getLogger(__name__)

# Longest BOMs first: the UTF-32 LE BOM starts with the UTF-16 LE one.
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Control characters that never occur in text (tab, newlines, form feed and ESC are allowed:
# ESC appears in logs with terminal colours), and the replacement character of a failed decode.
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]")
_WIDE_BOMS = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_CR = re.compile(rb"\r\n?")
_BINARY_RATIO = 0.01
_RARE_PREFIXES = ("cp437", "cp7", "cp8", "mac_", "hp_", "ptcp", "kz1048")
_SAMPLE_CHARS = 65536


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or a ReaderError saying why it cannot be read and what to do."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    if not data:
        raise _empty(path)
    return data


def open_binary(path: Path) -> BinaryIO:
    """The file opened for reading in binary, or a ReaderError saying why it cannot be read
    (an empty file too), for readers that go through a file a block at a time."""
    try:
        source = path.open("rb")
        empty = os.fstat(source.fileno()).st_size == 0
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    if empty:
        source.close()
        raise _empty(path)
    return source


def _empty(path: Path) -> ReaderError:
    return ReaderError(path, "the file is empty (0 bytes)", "add content or leave the file out")


def _unreadable(path: Path, exc: OSError) -> ReaderError:
    if isinstance(exc, IsADirectoryError):
        return ReaderError(path, "is a directory, not a file",
                           "read folders with SimpleDirectoryReader(input_dir=...)")
    if isinstance(exc, FileNotFoundError):
        if path.is_symlink():
            return ReaderError(path, "is a broken symbolic link (its target does not exist)",
                               "fix or remove the link")
        return ReaderError(path, "does not exist", "check the path and the file name")
    if isinstance(exc, PermissionError):
        return ReaderError(path, "permission denied",
                           "make the file readable (chmod +r) or leave it out")
    return ReaderError(path, f"cannot be read ({exc.strerror or exc})",
                       "check the disk and the file")


def read_text(path: Path) -> str:
    """The file decoded to text with newlines normalized to ``\\n``.

    A text holding one character above U+00FF is four bytes per character in Python, so no
    whole copy of it is made: newlines are normalized in the bytes (where the encoding keeps
    CR and LF as single bytes), and the bytes are let go as soon as they are decoded. A big
    file costs its bytes and its text at once, then only its text."""
    data = _normalized_newlines(read_bytes(path))
    text = _decode(data, path, None)
    del data
    return clean_text(text, path)


def _normalized_newlines(data: bytes) -> bytes:
    """``data`` with CRLF and CR made LF, unless it may be UTF-16/32 (a BOM, or NULs in
    many code units), where a CR byte can be half of another character."""
    if b"\r" not in data or data.startswith(_WIDE_BOMS) or data.count(b"\x00") * 4 > len(data):
        return data
    return _CR.sub(b"\n", data)


def decode_text(data: bytes, path: Path, *, declared: str | None = None) -> str:
    """Decode ``data``: BOM, then ``declared`` (e.g. an HTML meta charset), UTF-8, detection."""
    return clean_text(_decode(data, path, declared), path)


def _decode(data: bytes, path: Path, declared: str | None) -> str:
    if not data:
        raise _empty(path)
    text = _decode_known(data, declared)
    if text is None:
        text = _decode_detected(data, path)
    return text


def clean_text(text: str, path: Path) -> str:
    """``text`` refused if it looks binary, else without BOMs and with newlines made ``\\n``."""
    if looks_binary(text):
        raise _binary(path, "looks like a binary file, not text")
    return tidy_text(text)


def tidy_text(text: str) -> str:
    """``text`` without BOMs and with newlines made ``\\n`` (no binary check: for the parts
    after a file's first, which ``clean_text`` judged)."""
    # U+FEFF anywhere is a byte-order mark left by concatenated files (its old zero-width
    # no-break space meaning is deprecated in favour of U+2060): invisible junk, removed.
    for junk, newline in (("\ufeff", ""), ("\r\n", "\n"), ("\r", "\n")):
        if junk in text:  # each replace is a whole copy: only when there is something to do
            text = text.replace(junk, newline)
    return text


def looks_binary(text: str) -> bool:
    """True when more than 1% of the first 64k characters are control or replacement chars."""
    sample = text[:_SAMPLE_CHARS]
    if not sample:
        return False
    return len(_NOT_TEXT.findall(sample)) > _BINARY_RATIO * len(sample)


def _binary(path: Path, problem: str) -> ReaderError:
    hint = (
        "check that the file extension matches its content; "
        "save documents as PDF, .docx, HTML or plain text"
    )
    return ReaderError(path, problem, hint)


def _utf16_behind_utf32_bom(data: bytes, encoding: str) -> bool:
    """UTF-16 text starting with NUL begins like a UTF-32 BOM; UTF-32 must then decode cleanly
    to text, or the UTF-16 reading wins. Text in UTF-32 keeps to the planes that hold
    characters (0-3, and 14's tags): UTF-16 read as UTF-32 lands in the private-use planes
    ("\x00" + "0" in UTF-16 LE reads as U+100030)."""
    if encoding != "utf-32":
        return False
    try:
        text = data.decode("utf-32")
    except UnicodeDecodeError:
        return True
    return not text or any(ord(c) > 0x3FFFF and not 0xE0000 <= ord(c) <= 0xE0FFF for c in text)


def _decode_known(data: bytes, declared: str | None) -> str | None:
    for bom, encoding in _BOMS:
        if data.startswith(bom) and not _utf16_behind_utf32_bom(data, encoding):
            return data.decode(encoding, errors="replace")
    if declared:
        try:
            return data.decode(declared)
        except (LookupError, UnicodeDecodeError):
            logger.debug("declared encoding %r does not decode the data; detecting", declared)
    # NUL bytes are valid UTF-8 but mean UTF-16/32 without a BOM, where Western text has a NUL in
    # most code units: let detection decide. A few NULs are binary junk (refused by the caller),
    # not a reason to read 4 bytes of ASCII as two CJK characters.
    if data.count(b"\x00") * 4 > len(data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _decode_detected(data: bytes, path: Path) -> str:
    from charset_normalizer import from_bytes

    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        raise _binary(path, "looks like a binary file, not text (no text encoding fits it)")
    encoding = _choose_encoding(matches, best)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        encoding = best.encoding
        text = data.decode(encoding, errors="replace")
    logger.debug("%s: detected encoding %s", path, encoding)
    return text


def _choose_encoding(matches: Any, best: Any) -> str:
    """The detector's pick, overruled in favour of cp1252 when that fits as well.

    DOS and Mac code pages fit short Western text as well as cp1252 does (their accented letters
    sit at other byte values, so the detector sees no chaos) but are rarely what a file is
    written in today: they are considered only when nothing else fits.
    """
    modern = [m for m in matches if not m.encoding.startswith(_RARE_PREFIXES)] or [best]
    least_chaos = min(m.percent_chaos for m in modern)
    for match in modern:
        fits = match.percent_chaos <= least_chaos + 1.0
        if fits and "cp1252" in match.could_be_from_charset:
            return "cp1252"
    return modern[0].encoding
