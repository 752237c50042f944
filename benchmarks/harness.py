"""Shared pieces of the benchmarks: result rows, timing, the corpus location, peak memory, output.

Benchmarks are not tests: they measure on the real corpus and synthetic data, print a table with
each target beside its figure, and write the same rows as JSON to ``benchmarks/results/``.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass(slots=True)
class Row:
    """One measured figure, with its target (if any) and whether the target was met."""

    group: str
    metric: str
    value: float | None
    unit: str = ""
    target: str = ""
    ok: bool | None = None
    note: str = ""

    @classmethod
    def from_any(cls, item: Any, *, group: str) -> Row:
        """Accept a Row, or a dict with at least metric/value (other benchmark modules)."""
        if isinstance(item, Row):
            return item
        if isinstance(item, dict):
            known = {k: item[k] for k in ("group", "metric", "value", "unit", "target", "ok",
                                          "note") if k in item}
            known.setdefault("group", group)
            known.setdefault("metric", str(item.get("name", "?")))
            known.setdefault("value", None)
            return cls(**known)
        raise TypeError(f"benchmark rows must be Row or dict, got {type(item).__name__}")


def corpus_dir() -> Path:
    """The benchmark corpus: $RAGCORE_CORPUS or ../shared/corpus beside the repository."""
    override = os.environ.get("RAGCORE_CORPUS")
    path = Path(override) if override else REPO.parent / "shared" / "corpus"
    if not path.is_dir():
        raise SystemExit(f"corpus not found at {path}: set RAGCORE_CORPUS to the corpus folder")
    return path


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds taken by ``fn()`` and its result."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def timed_cpu(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall seconds, CPU seconds of this process (all threads), and the result of ``fn()``.

    On a shared machine CPU time shows the work done even when other processes steal the cores.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` timed runs (least disturbed by other processes)."""
    return min(timed(fn)[0] for _ in range(max(1, repeat)))


def peak_memory_mb() -> float:
    """Peak resident memory of this process in MB (ru_maxrss is KB on Linux, bytes on macOS).

    Children are not reported: Linux carries the parent's peak across fork+exec, so the
    children's figure would only repeat ours.
    """
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / (1024 * 1024)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def machine_load() -> list[float] | None:
    """The 1/5/15-minute load averages: figures from a busy shared machine read differently."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def format_value(value: float | None, unit: str) -> str:
    if value is None:
        return "n/a"
    if abs(value) >= 100:
        text = f"{value:,.0f}"
    elif abs(value) >= 1:
        text = f"{value:.2f}"
    else:
        text = f"{value:.4f}"
    return f"{text} {unit}".strip()


def format_table(rows: list[Row]) -> str:
    """A text table: group, metric, value, target, verdict, note."""
    headers = ["group", "metric", "value", "target", "ok", "note"]
    cells = [
        [r.group, r.metric, format_value(r.value, r.unit), r.target,
         {True: "yes", False: "NO", None: ""}[r.ok], r.note]
        for r in rows
    ]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(cell, widths, strict=True)).rstrip()
              for cell in cells]
    return "\n".join(lines)


def write_results(rows: list[Row], *, quick: bool, seconds: float) -> Path:
    """Write rows plus machine facts to results/<timestamp>.json and results/latest.json."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    payload = {
        "created": stamp,
        "quick": quick,
        "seconds": seconds,
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count(), "load_average_1_5_15_min": machine_load()},
        "rows": [asdict(r) for r in rows],
    }
    text = json.dumps(payload, indent=2) + "\n"
    path = RESULTS_DIR / f"{stamp}{'-quick' if quick else ''}.json"
    path.write_text(text, encoding="utf-8")
    (RESULTS_DIR / "latest.json").write_text(text, encoding="utf-8")
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """``rows`` to ``path``, one JSON object a line (UTF-8, not escaped); its folder made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path
