"""Jupyter notebooks (.ipynb): markdown cells as text, code cells as fenced code, no outputs.

Outputs are left out on purpose: they are mostly images, tables and tracebacks encoded as JSON
blobs that would drown the prose and code in noise. Cells are separated by blank lines; code is
fenced with the notebook's language so the text reads like the Markdown it resembles. Raw cells
are skipped. Both nbformat 4 (``cells``) and 3 (``worksheets``) are read, with the stdlib json.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part

_HINT = "open it in Jupyter and save it again, or export it as Markdown"


def read_notebook(path: Path) -> list[Part]:
    """One part: the markdown and code cells in order."""
    try:
        notebook = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise ReaderError(path, f"is not a valid notebook (bad JSON: {exc.msg})", _HINT) from exc
    if not isinstance(notebook, dict):
        raise ReaderError(path, "is not a valid notebook (no cells)", _HINT)
    cells = _cells(notebook)
    if cells is None:
        raise ReaderError(path, "is not a valid notebook (no cells)", _HINT)
    language = _language(notebook)
    blocks = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _source(cell).strip("\n")
        if not source.strip():
            continue
        kind = cell.get("cell_type")
        if kind == "markdown":
            blocks.append(source)
        elif kind == "code":
            blocks.append(f"```{language}\n{source}\n```")
    return [Part("\n\n".join(blocks))]


def _cells(notebook: dict[str, Any]) -> list[Any] | None:
    cells = notebook.get("cells")
    if isinstance(cells, list):
        return cells
    worksheets = notebook.get("worksheets")
    if isinstance(worksheets, list):
        sheets = [sheet for sheet in worksheets if isinstance(sheet, dict)]
        return [cell for sheet in sheets for cell in sheet.get("cells", [])]
    return None


def _language(notebook: dict[str, Any]) -> str:
    metadata = notebook.get("metadata") or {}
    info = metadata.get("language_info") or {}
    kernel = metadata.get("kernelspec") or {}
    language = info.get("name") or kernel.get("language") or "python"
    return language if isinstance(language, str) else "python"


def _source(cell: dict[str, Any]) -> str:
    source = cell.get("source", cell.get("input", ""))  # nbformat 3 code cells use "input"
    if isinstance(source, list):
        return "".join(str(line) for line in source)
    return source if isinstance(source, str) else ""
