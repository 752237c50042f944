"""A user's own questions from CSV or JSON lines: question, expected answer, expected source.

The columns (CSV header, or JSON keys) are matched by name, case-insensitively: the question
("question", "query"), the expected answer ("expected_answer", "answer", "reference") and the
expected source ("expected_source", "source", "file"; several separated by ";"). Only the
question is required. A line that cannot be read raises ConfigError naming the file, the line
and the fix; a question asked twice is kept once.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any, Iterator

from ...errors import ConfigError
from .dataset import EmbeddingQAFinetuneDataset

QUESTION_KEYS = ("question", "query")
ANSWER_KEYS = ("expected_answer", "answer", "reference", "reference_answer")
SOURCE_KEYS = ("expected_source", "source", "file", "expected_sources", "sources")


def import_questions(path: str | Path) -> EmbeddingQAFinetuneDataset:
    """The questions of a .csv, .jsonl or .json-lines file as a question set."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise ConfigError(f"question file {path} not found: check the path") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"question file {path} cannot be read ({exc}): save it as UTF-8 "
                          "text") from exc
    return questions_from_text(text, name=str(path), csv_format=path.suffix.lower() == ".csv")


def questions_from_text(text: str, *, name: str, csv_format: bool
                        ) -> EmbeddingQAFinetuneDataset:
    """``import_questions`` on text already read (the app's upload)."""
    records = _csv_records(text, name) if csv_format else _jsonl_records(text, name)
    dataset = EmbeddingQAFinetuneDataset({}, origin=f"imported from {Path(name).name}")
    for where, record in records:
        _add(dataset, record, where)
    if not dataset.queries:
        raise ConfigError(f"{name} holds no question: add a 'question' column (CSV) or key "
                          "(JSON lines) with one question a line")
    return dataset


def _csv_records(text: str, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip().lower() for h in reader.fieldnames or []]
    if not any(key in header for key in QUESTION_KEYS):
        raise ConfigError(f"{name}:1: the header ({', '.join(header) or 'empty'}) has no "
                          "'question' column: name the column of questions 'question'")
    try:
        for row in reader:
            if None in row:
                raise ConfigError(f"{name}:{reader.line_num}: more cells than the header has "
                                  "columns: quote cells that hold commas")
            yield f"{name}:{reader.line_num}", {k.strip().lower(): v for k, v in row.items()}
    except csv.Error as exc:
        raise ConfigError(f"{name}:{reader.line_num}: not CSV ({exc}): fix the line") from exc


def _jsonl_records(text: str, name: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not JSON ({exc.msg}): write one JSON object a line, "
                              'e.g. {"question": "...", "expected_answer": "..."}') from exc
        if not isinstance(record, dict):
            raise ConfigError(f"{where}: a JSON {type(record).__name__}, not an object: write "
                              '{"question": "..."}')
        yield where, {str(k).strip().lower(): v for k, v in record.items()}


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((record[k] for k in keys if record.get(k) not in (None, "")), None)


def _add(dataset: EmbeddingQAFinetuneDataset, record: dict[str, Any], where: str) -> None:
    question = _first(record, QUESTION_KEYS)
    if not isinstance(question, str) or not question.strip():
        raise ConfigError(f"{where}: no question (the 'question' cell is empty or not text): "
                          "write the question or delete the line")
    question = " ".join(question.split())
    if question in dataset.queries.values():
        dataset.problems.append(f"{where}: {question!r} was asked before; kept once")
        return
    qid = f"q{len(dataset.queries) + 1:03d}"
    dataset.queries[qid] = question
    answer = _first(record, ANSWER_KEYS)
    if answer is not None:
        dataset.reference_answers[qid] = str(answer).strip()
    sources = _first(record, SOURCE_KEYS)
    if sources is not None:
        items = sources if isinstance(sources, list) else str(sources).split(";")
        dataset.expected_sources[qid] = [str(s).strip() for s in items if str(s).strip()]
