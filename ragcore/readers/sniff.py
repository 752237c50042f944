"""Files of unknown type (no or an unfamiliar extension): choose a reader from the content.

``changelog.Debian``, ``README.api``, ``copyright`` and ``NOTES`` are text whatever their name
says, so a file the extension table does not know is read by its content: a PDF, Office or EPUB
file by its signature (a report saved without an extension still reads as a PDF), text by its
bytes (no NUL bytes and a clean decode in the first 8 KiB), and anything else is refused as an
unsupported binary file, naming the formats that can be read (old binary Office files get
their own advice: save them in the current format). Only the first bytes are
read to decide, so a folder of photos is skipped quickly.
"""

from __future__ import annotations

import codecs
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

from ragcore.errors import ReaderError
from ragcore.readers.decoding import looks_binary
from ragcore.readers.part import Part

SNIFF_BYTES = 8192
FormatName = str  # an extension naming the format, e.g. ".pdf"
_TEXT_BOMS = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
# The first member of an Office zip names its format; EPUB opens with its "mimetype" member.
_ZIP_MARKERS = ((b"word/", ".docx"), (b"ppt/", ".pptx"), (b"xl/", ".xlsx"))
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # the container of .doc, .xls and .ppt
Reader = Callable[[Path], list[Part]]


def content_format(path: Path, head: bytes) -> FormatName | None:
    """The format ``head`` (the file's first bytes) shows: ".pdf", ".docx"..., ".txt" or None."""
    if head.startswith(b"%PDF-"):
        return ".pdf"
    if head.startswith(b"{\\rtf"):
        return ".rtf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(path)
    if head.startswith(_TEXT_BOMS):
        return ".txt"
    if b"\x00" in head:
        return None
    if _mostly_utf8(head):
        sample = head.decode("utf-8", errors="ignore")
    else:  # a legacy single-byte encoding: cp1252 maps nearly every byte to a character
        sample = head.decode("cp1252", errors="replace")
    return None if looks_binary(sample) else ".txt"


def read_by_content(path: Path, readers: Mapping[str, Reader],
                    mime_types: Mapping[str, str]) -> list[Part]:
    """Read a file of unknown type with the reader its content calls for, or refuse it.

    A document recognised by its signature gets that format's MIME type as ``file_type``.
    """
    head = _head(path)
    found = content_format(path, head)
    if found is None:
        raise _unreadable(path, head)
    parts = readers[found](path)
    if found == ".txt":
        return parts
    return [replace(p, metadata={**p.metadata, "file_type": mime_types[found]}) for p in parts]


def _unreadable(path: Path, head: bytes) -> ReaderError:
    kind = f"type {path.suffix!r}" if path.suffix else "no extension"
    if head.startswith(_OLE2):
        return ReaderError(
            path,
            f"is an old binary Office file ({kind}: Word 97-2003 .doc, Excel .xls or "
            "PowerPoint .ppt), which ragcore cannot read",
            "open it in Office or LibreOffice and save it as .docx, .xlsx or .pptx",
        )
    return ReaderError(
        path,
        f"is not a document ragcore can read ({kind}, binary content)",
        "leave it out, or save it as PDF, Word (.docx), PowerPoint (.pptx), Excel (.xlsx), "
        "EPUB, HTML or plain text",
    )


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as stream:
            return stream.read(SNIFF_BYTES)
    except OSError:
        return b"\n"  # let the text reader report why the file cannot be read


def _mostly_utf8(head: bytes) -> bool:
    """True when ``head`` decodes as UTF-8, allowing a character cut at the end of the sample."""
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 3
    return True


def _zip_format(path: Path) -> FormatName | None:
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            if "mimetype" in names and archive.getinfo("mimetype").file_size < 64:
                if archive.read("mimetype").strip() == b"application/epub+zip":
                    return ".epub"
    except (zipfile.BadZipFile, OSError, KeyError, ValueError, RuntimeError):
        return None
    for marker, found in _ZIP_MARKERS:
        if any(name.encode("utf-8", "replace").startswith(marker) for name in names):
            return found
    return None

