"""The check with the trained reader, replayed on recorded SQuAD answers: its settings' curve.

    python -m benchmarks.reader.sweep [rows.jsonl] [--grid]

``squad_local`` records each question's answer by the packaged model and the passages it read.
Here each answer is shown again as the app shows it (the not-found gate, then the check,
``grounded_set.shown_text``, no judge) and read as a person reads it: refused (the reply's
first sentence says the documents don't say it), else right when it holds a gold answer
(``squad.contains_gold``), else wrong. The model's own text is read the same way (right when
its short answer or text holds a gold answer, before any check), so "no right answer lost"
is the first two columns side by side.

The default rows are the calibration article's (a *training* article: the thresholds of
``grounding.stating`` are chosen here); ``--grid`` moves each of them alone. The official
dev rows (``benchmarks/answers/squad_local_rows/official-dev-*.jsonl``) are measured with the shipped settings
only, once. The last column is the check's median seconds per answer (the reader included);
``--busy`` measures it beside two programs spinning on both cores.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.answers.answer_measures import says_not_found, short_answer
from benchmarks.answers.gate_sweep import gate_refuses
from benchmarks.answers.grounded_set import refused_first, shown_text
from benchmarks.answers.squad import contains_gold, token_f1
from ragcore.grounding import stating
from ragcore.synthesis.not_found import NotFoundGate
from ragcore.types import Node, ScoredNode

ROWS = (Path(__file__).resolve().parents[1] / "answers" / "squad_local_rows"
        / "calibration-whole-2026-11-28-run1.jsonl")
GRID = {"STATES": (0.3, 0.5, 0.7), "SURE": (0.8, 0.9, 1.01)}


def outcomes(rows: list[dict], embedder=None) -> list[dict]:
    """Each row's outcome as shown and the model's own, and the F1 of what is shown."""
    gate = NotFoundGate()
    out = []
    for row in rows:
        golds = row["golds"]
        refused = gate_refuses(row, gate) or says_not_found(row["answer"])
        nodes = [ScoredNode(Node(text=passage), 1.0) for passage in row["passages"]]
        started = time.perf_counter()
        shown, _ = shown_text(row["answer"], nodes, question=row["question"], embedder=embedder)
        seconds = time.perf_counter() - started
        refused = refused or refused_first(shown)
        own = "" if says_not_found(row["answer"]) else row["answer"]
        out.append({
            "answerable": bool(golds), "refused": refused,
            "right": bool(golds) and not refused and contains_gold(shown, golds),
            "own_right": bool(golds) and bool(own) and contains_gold(own, golds),
            "f1": 0.0 if refused or not golds else token_f1(short_answer(row["answer"]), golds),
            "own_f1": token_f1(short_answer(row["answer"]), golds) if golds else 0.0,
            "seconds": seconds})
    return out


def summary(items: list[dict]) -> dict:
    answerable = [i for i in items if i["answerable"]]
    unanswerable = [i for i in items if not i["answerable"]]
    seconds = sorted(i["seconds"] for i in items)
    return {
        "model's own right": sum(i["own_right"] for i in answerable),
        "shown right": sum(i["right"] for i in answerable),
        "shown wrong": sum(not i["right"] and not i["refused"] for i in answerable),
        "refused, own right": sum(i["refused"] and i["own_right"] for i in answerable),
        "unanswerable shown": sum(not i["refused"] for i in unanswerable),
        "refusal": sum(i["refused"] for i in unanswerable) / max(1, len(unanswerable)),
        "false not found": sum(i["refused"] for i in answerable) / max(1, len(answerable)),
        "F1 shown": 100 * sum(i["f1"] for i in answerable) / max(1, len(answerable)),
        "F1 own": 100 * sum(i["own_f1"] for i in answerable) / max(1, len(answerable)),
        "median s": seconds[len(seconds) // 2] if seconds else 0.0}


def row_line(name: str, figures: dict) -> str:
    cells = [f"{v:.1%}" if k in ("refusal", "false not found") else
             f"{v:.1f}" if isinstance(v, float) else str(v) for k, v in figures.items()]
    return f"| {name} | " + " | ".join(cells) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", nargs="?", type=Path, default=ROWS)
    parser.add_argument("--grid", action="store_true", help="other settings of the thresholds")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a threshold of grounding.stating set for this run only")
    parser.add_argument("--busy", action="store_true",
                        help="beside two programs keeping both cores busy")
    args = parser.parse_args()
    if args.busy:
        _burn(2)
    rows = [json.loads(line) for line in args.rows.read_text().splitlines() if line.strip()]
    rows = rows[:args.limit] if args.limit else rows
    from ragcore.embeddings.packaged import default_embedder

    embedder = default_embedder()
    shipped = {name: getattr(stating, name) for name in GRID}
    for item in args.set:
        name, value = item.split("=")
        shipped[name] = float(value)
    settings = [{}]
    if args.grid:  # one threshold moved at a time
        settings += [{name: v} for name, values in GRID.items() for v in values
                     if v != shipped[name]]
    header = None
    for change in settings:
        for name, value in {**shipped, **change}.items():
            setattr(stating, name, value)
        figures = summary(outcomes(rows, embedder))
        if header is None:
            header = "| setting | " + " | ".join(figures) + " |"
            print(header + "\n" + "|---" * (len(figures) + 1) + "|")
        label = ", ".join(f"{k} {v}" for k, v in change.items()) or (
            "shipped: " + ", ".join(f"{k} {v}" for k, v in shipped.items()))
        print(row_line(label, figures), flush=True)
    for name, value in shipped.items():
        setattr(stating, name, value)


def _spin() -> None:
    while True:
        pass


def _burn(count: int) -> None:
    """``count`` processes spinning until this one exits (the busy machine's "other programs")."""
    import atexit
    import multiprocessing

    workers = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for worker in workers:
        worker.start()
    atexit.register(lambda: [w.terminate() for w in workers])


if __name__ == "__main__":
    main()
