"""Excel workbooks (.xlsx, .xlsm) with openpyxl: one part per sheet, rows as "column: value" text.

Each sheet's first non-empty row is its header and every later row becomes a block of
"column: value" lines (as the CSV reader renders rows, with the same function), so a chunk cut
from the middle of a sheet still says what each number means. A sheet with a single row is
that row's cells joined by `` | ``. Formulas give the value Excel last computed and saved (a file
written by a program that never computed them has no values there). Dates are ISO, whole
numbers lose their ``.0``. Each sheet part has ``sheet`` (its name) and ``sheet_number``; empty
and chart sheets are skipped. Old binary .xls files are not supported.

Bounded work on hostile input: the archive is checked before parsing (``zip_limits``: unzipped
size, and at most ``MAX_XLSX_CELLS`` cells and as many shared strings), the workbook is streamed
(openpyxl's read-only mode), and a sheet whose sparse layout would make us walk more than
``MAX_XLSX_WALKED_CELLS`` empty positions is refused. openpyxl is imported on first use.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import warnings
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.part import Part
from ragcore.readers.tables import rows_to_text
from ragcore.readers.office.zip_limits import ZipLimits, check_zip

MAX_XLSX_EXPANDED_BYTES = 256 * 1024 * 1024
# A million filled cells is ~30 MB of text: far more than anyone chats with, and hours to embed.
MAX_XLSX_CELLS = 1_000_000
MAX_XLSX_WALKED_CELLS = 5_000_000
_HINT = "keep the sheets or rows you need in a smaller workbook, or export them as .csv"


def read_xlsx(path: Path) -> list[Part]:
    """One part per sheet with data, with ``sheet`` (name) and ``sheet_number`` metadata."""
    data = read_bytes(path)
    for limits in _limits():
        check_zip(data, path, limits)
    workbook = _open(data, path)
    parts = []
    budget = [MAX_XLSX_WALKED_CELLS]
    try:
        for number, sheet in enumerate(workbook.worksheets, start=1):
            rows = _sheet_rows(sheet, path, budget)
            if not rows:
                continue
            text = " | ".join(rows[0]) if len(rows) == 1 else rows_to_text(rows[0], rows[1:])
            metadata = {"sheet": sheet.title, "sheet_number": number}
            parts.append(Part(f"Sheet: {sheet.title}\n\n{text}", metadata, f"#page={number}",
                              ("sheet_number",), ("sheet_number",)))
    finally:
        workbook.close()
    return parts


def _limits() -> tuple[ZipLimits, ZipLimits]:
    """Cells in the sheets, and strings in the shared table openpyxl loads whole."""
    cells = ZipLimits(
        kind=".xlsx",
        max_expanded_bytes=MAX_XLSX_EXPANDED_BYTES,
        members=re.compile(r"xl/worksheets/[^/]+\.xml"),
        element=re.compile(rb"<(?:\w+:)?c[ >/]"),
        element_name="cells",
        max_elements=MAX_XLSX_CELLS,
        hint=_HINT,
    )
    strings = ZipLimits(
        kind=".xlsx",
        max_expanded_bytes=MAX_XLSX_EXPANDED_BYTES,
        members=re.compile(r"xl/sharedStrings\.xml"),
        element=re.compile(rb"<(?:\w+:)?si[ >/]"),
        element_name="shared strings",
        max_elements=MAX_XLSX_CELLS,
        hint=_HINT,
    )
    return cells, strings


def _open(data: bytes, path: Path) -> Any:
    from openpyxl import load_workbook

    try:
        with warnings.catch_warnings():
            # openpyxl warns about features it drops (data validation, conditional formats...):
            # irrelevant to the text we read.
            warnings.simplefilter("ignore")
            return load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:
        raise ReaderError(
            path,
            f"is not a valid .xlsx file ({type(exc).__name__}: {exc})",
            "open it in Excel or LibreOffice Calc and save it as .xlsx; "
            "old .xls files must be converted first",
        ) from exc


def _sheet_rows(sheet: Any, path: Path, budget: list[int]) -> list[list[str]]:
    """The sheet's non-empty rows as strings, trailing empty cells dropped."""
    # The stored dimension can claim a million rows by 16k columns; read only the cells present.
    sheet.reset_dimensions()
    rows = []
    for values in sheet.iter_rows(values_only=True):
        budget[0] -= len(values) + 1
        if budget[0] < 0:
            raise ReaderError(
                path,
                f"sheet {sheet.title!r} spreads its cells over more than "
                f"{MAX_XLSX_WALKED_CELLS:,} positions (a generated or hostile workbook)",
                _HINT,
            )
        cells = [_cell_text(value) for value in values]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            rows.append(cells)
    return rows


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return " ".join(str(value).split())
