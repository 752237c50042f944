"""JSON (.json) and JSON Lines (.jsonl) rendered as readable indented "key: value" text.

Embedders and LLMs read prose better than braces and quotes, so objects become indented
"key: value" lines (a YAML-like outline), lists become "- item" lines and a top-level list of
records becomes blank-line separated blocks. A .json file is one document. A .jsonl file is one
document per non-blank line (metadata ``line``, id suffix ``#line=N``): each line is a record of
its own, so a retrieved chunk never mixes two records and a citation names the line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part


def read_json(path: Path) -> list[Part]:
    """One part: the whole JSON value rendered as text."""
    try:
        value = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise ReaderError(
            path,
            f"is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})",
            "fix the syntax there (a JSON linter shows the exact spot)",
        ) from exc
    except RecursionError as exc:
        raise ReaderError(path, "is nested too deeply to read", "flatten the structure") from exc
    return [Part(json_to_text(value, path))]


def read_jsonl(path: Path) -> list[Part]:
    """One part per non-blank line, each with ``line`` (1-based) metadata."""
    parts = []
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReaderError(
                path,
                f"line {number} is not valid JSON ({exc.msg}, column {exc.colno})",
                "fix or remove that line (JSON Lines needs one complete JSON value per line)",
            ) from exc
        except RecursionError as exc:
            raise ReaderError(path, f"line {number} is nested too deeply", "flatten it") from exc
        text = json_to_text(value, path)
        parts.append(Part(text, {"line": number}, f"#line={number}", ("line",)))
    return parts


def json_to_text(value: Any, path: Path | None = None) -> str:
    """A JSON value as indented "key: value" lines; a list of records as separate blocks."""
    try:
        if isinstance(value, list) and value and all(isinstance(v, dict | list) for v in value):
            return "\n\n".join("\n".join(_lines(item, 0)) for item in value)
        return "\n".join(_lines(value, 0))
    except RecursionError as exc:
        where = path or "<json>"
        raise ReaderError(where, "is nested too deeply", "flatten the structure") from exc


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _lines(value: Any, depth: int) -> list[str]:
    pad = "  " * depth
    if isinstance(value, dict):
        labelled = [(f"{key}:", item) for key, item in value.items()]
    elif isinstance(value, list):
        labelled = [("-", item) for item in value]
    else:
        return [f"{pad}{_scalar(value)}"]
    lines = []
    for label, item in labelled:
        if isinstance(item, dict | list) and item:
            lines.append(f"{pad}{label}")
            lines.extend(_lines(item, depth + 1))
        else:
            lines.append(f"{pad}{label} {_scalar(item)}")
    return lines
