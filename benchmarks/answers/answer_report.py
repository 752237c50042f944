"""What the answer benchmark leaves behind for one question set: harness rows (with issue 19's
targets), the markdown table, and every question's outcome in ``benchmarks/results/``.

``before.json`` holds the measures of the answerer before issue 19 (commit f63116c, see
``BEFORE.md``); the tables show them beside today's. It is made from the outcome files of a
run on that commit:

    python -m benchmarks.answers.answer_report path/to/that/checkout/benchmarks/results
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import asdict, fields
from pathlib import Path
from typing import Sequence

from .answer_measures import (
    MEASURES,
    Record,
    answer_words,
    markdown_table,
    measures,
    says_not_found,
    short_answer,
)
from .squad import contains_gold, exact_match, token_f1

_BOUND = re.compile(r"^(<=|>=|<)\s*([\d.]+)$")
BEFORE_FILE = Path(__file__).with_name("before.json")
SETS = ("corpus", "squad")


def report(name: str, title: str, records: Sequence[Record]) -> tuple[list[dict], str]:
    """The rows and the table of one question set (``name``: "corpus" or "squad"), its
    per-question outcomes written to ``benchmarks/results/answers-<name>-latest.jsonl``."""
    ours, base = measures(records), measures(records, baseline=True)
    write_outcomes(name, records)
    before = before_measures().get(name)
    table = markdown_table(title, ours, base, before)
    return rows(name, ours, base, before or {}), table


def before_measures(path: Path = BEFORE_FILE) -> dict[str, dict]:
    """The measures before issue 19 per question set ({} when the file is missing)."""
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def read_outcomes(path: Path) -> list[Record]:
    """The records of an outcome file written by ``write_outcomes``."""
    names = {f.name for f in fields(Record)}
    return [Record(**{k: v for k, v in json.loads(line).items() if k in names})
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def save_before(results: Path, path: Path = BEFORE_FILE) -> None:
    """Write the measures of the outcome files in ``results`` as the figures before issue 19."""
    saved = {name: {k: None if v is None else round(v, 4) for k, v in
                    measures(read_outcomes(results / f"answers-{name}-latest.jsonl")).items()}
             for name in SETS}
    path.write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")


def rows(name: str, ours: dict, base: dict, before: dict) -> list[dict]:
    """A harness row per measure, the figures before issue 19 and the baseline's in the note."""
    out = []
    for metric, unit, target in MEASURES:
        value, other, then = ours[metric], base[metric], before.get(metric)
        if value is None:
            continue
        note = "; ".join(f"{label} {figure:.3g}" for label, figure in
                         (("before", then), ("baseline", other)) if figure is not None)
        out.append({"metric": f"{name}: {metric}", "value": value, "unit": unit,
                    "target": target, "ok": meets(value, target), "note": note})
    return out


def meets(value: float, target: str) -> bool | None:
    """Whether ``value`` meets a target written "<= 30", ">= 50" or "< 0.5" (None: no target)."""
    bound = _BOUND.match(target)
    if not bound:
        return None
    limit = float(bound.group(2))
    return {"<=": value <= limit, ">=": value >= limit, "<": value < limit}[bound.group(1)]


def outcome(record: Record) -> dict:
    """A record with what the measures read from it."""
    short = short_answer(record.answer)
    return {**asdict(record), "short": short, "words": answer_words(record.answer),
            "not_found": says_not_found(record.answer),
            "exact": exact_match(short, record.golds) if record.answerable else None,
            "f1": token_f1(short, record.golds) if record.answerable else None,
            "contains": contains_gold(record.answer, record.golds),
            "baseline_f1": token_f1(record.baseline, record.golds) if record.answerable else None}


def write_outcomes(name: str, records: Sequence[Record], folder: Path | None = None) -> None:
    from benchmarks.harness import RESULTS_DIR

    folder = folder or RESULTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(outcome(r), ensure_ascii=False) for r in records]
    path = folder / f"answers-{name}-latest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    save_before(Path(sys.argv[1]))
