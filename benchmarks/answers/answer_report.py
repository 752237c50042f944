"""What the answer benchmark leaves behind for one question set: harness rows (with issue 19's
targets), the markdown table, and every question's outcome in ``benchmarks/results/``."""

from __future__ import annotations

import json
import re
from dataclasses import asdict
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


def report(name: str, title: str, records: Sequence[Record]) -> tuple[list[dict], str]:
    """The rows and the table of one question set (``name``: "corpus" or "squad"), its
    per-question outcomes written to ``benchmarks/results/answers-<name>-latest.jsonl``."""
    ours, base = measures(records), measures(records, baseline=True)
    write_outcomes(name, records)
    return rows(name, ours, base, len(records)), markdown_table(title, ours, base)


def rows(name: str, ours: dict, base: dict, count: int) -> list[dict]:
    """A harness row per measure, the baseline's figure in the note."""
    out = []
    for metric, unit, target in MEASURES:
        value, other = ours[metric], base[metric]
        if value is None:
            continue
        note = f"baseline {other:.3g}" if other is not None else f"{count} questions"
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


def write_outcomes(name: str, records: Sequence[Record]) -> None:
    from benchmarks.harness import RESULTS_DIR

    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(outcome(r), ensure_ascii=False) for r in records]
    path = RESULTS_DIR / f"answers-{name}-latest.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
