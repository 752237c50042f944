"""Rich Text Format (.rtf) with striprtf: the document's text, formatting dropped.

RTF is 7-bit text whose non-ASCII letters are escapes (``\\'e9``, ``\\u233?``) decoded in the
code page the file declares (``\\ansicpg1252``; cp1252 when it declares none). Unlike the plain
text reader, control words, font tables and embedded pictures are removed rather than kept.
striprtf is imported on first use.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.part import Part

_CODE_PAGE = re.compile(rb"\\ansicpg(\d+)")
_BLANK_RUNS = re.compile(r"\n{3,}")


def read_rtf(path: Path) -> list[Part]:
    """One part: the document's text."""
    from striprtf.striprtf import rtf_to_text

    data = read_bytes(path)
    if not data.lstrip().startswith(b"{\\rtf"):
        raise ReaderError(
            path, "is not an RTF file (no {\\rtf header)", "check the file; rename it if it is "
            "another format"
        )
    encoding = _encoding(data)
    # RTF itself is ASCII; bytes above 127 only appear in broken files, read in the code page.
    source = data.decode(encoding, errors="replace")
    try:
        text = rtf_to_text(source, encoding=encoding, errors="replace")
    except Exception as exc:  # striprtf's regex parser fails in its own ways on broken files
        raise ReaderError(
            path,
            f"is not a readable RTF file ({type(exc).__name__}: {exc})",
            "open it in a word processor and save it again as RTF, .docx or .txt",
        ) from exc
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return [Part(_BLANK_RUNS.sub("\n\n", lines).strip() + "\n")]


def _encoding(data: bytes) -> str:
    match = _CODE_PAGE.search(data[:4096])
    if match:
        name = f"cp{int(match.group(1))}"
        try:
            codecs.lookup(name)
        except LookupError:
            return "cp1252"
        return name
    return "cp1252"
