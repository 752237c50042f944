"""Hostile-input limits for zip-based formats (.docx, .pptx, .xlsx, .epub), checked before parsing.

Office files and EPUBs are zip archives of XML. A small upload can declare gigabytes of content
(a "zip bomb") or hold millions of tiny elements (paragraphs, cells) that make a parser build
millions of objects. ``check_zip`` refuses both from the archive's directory and one streamed
pass over the counted members, before python-docx, python-pptx, openpyxl or ebooklib see the
file. Each reader states its own limits in a ``ZipLimits``, far above real documents.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from ragcore.errors import ReaderError

# Far above real files: an EPUB with every illustration has a few thousand members.
MAX_ZIP_MEMBERS = 50_000
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class ZipLimits:
    """What to refuse in one format: expanded size, and a count of ``element`` in ``members``."""

    kind: str  # the format as users name it, e.g. ".pptx"
    max_expanded_bytes: int
    members: re.Pattern[str]  # the XML members whose elements are counted
    element: re.Pattern[bytes]  # the opening of one counted element, e.g. rb"<a:p[ >/]"
    element_name: str  # e.g. "paragraphs"
    max_elements: int
    hint: str  # what the user can do instead


def check_zip(data: bytes, path: Path, limits: ZipLimits) -> None:
    """Raise ReaderError when the archive is too big unzipped or holds too many elements.

    A file that is not a zip at all passes: the format's parser reports it as invalid.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError):
        return
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_ZIP_MEMBERS:
            raise ReaderError(
                path,
                f"holds {len(infos):,} files inside its zip, over the {MAX_ZIP_MEMBERS:,} limit "
                f"for {limits.kind} files (a generated or hostile file)",
                limits.hint,
            )
        expanded = sum(info.file_size for info in infos)
        if expanded > limits.max_expanded_bytes:
            raise ReaderError(
                path,
                f"expands to {expanded:,} bytes when unzipped, over the "
                f"{limits.max_expanded_bytes:,}-byte limit for {limits.kind} files (a zip bomb "
                "or a document packed with huge embedded parts)",
                limits.hint,
            )
        counted = 0
        for info in infos:
            if limits.members.fullmatch(info.filename):
                counted += _count(archive, info, limits.element, limits.max_elements - counted)
                if counted > limits.max_elements:
                    raise ReaderError(
                        path,
                        f"has more than {limits.max_elements:,} {limits.element_name} (a "
                        "generated or hostile document)",
                        limits.hint,
                    )


def _count(archive: zipfile.ZipFile, info: zipfile.ZipInfo, element: re.Pattern[bytes],
           budget: int) -> int:
    """Occurrences of ``element`` in one member, streamed; stops once over ``budget``."""
    found = 0
    overlap = 16  # longer than any element opening, so one split across blocks is seen once
    try:
        with archive.open(info) as stream:
            tail = b""
            while block := stream.read(_BLOCK):
                window = tail + block
                found += len(element.findall(window)) - len(element.findall(tail))
                tail = window[-overlap:]
                if found > budget:
                    break
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError, NotImplementedError):
        return found  # a damaged member: the format's parser reports the file as invalid
    return found
