"""Span choice against the written answer on SQuAD held-out run 5's questions and passages.

    python -m benchmarks.answers.span_choice_pair [N]

Each question of ``squad_local_rows/heldout-2026-11-25-run5.jsonl`` (or its first N) is answered
twice, in one run, the two arms taking turns to go first: by the default synthesizer with the
packaged model (the model writes after "**") and by the same with ``span_choice=True`` (it
chooses among the passages' phrases, ``synthesis.span_choice``). Both read the very passages
the model read in run 5, so retrieval and the reading budget play no part. The gate records but
never refuses; the shipped gate is applied to the rows afterwards, as ``squad_local`` does. Rows
go to ``benchmarks/results/span-choice-pair.jsonl``; the table to stdout.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .answer_measures import measures
from .gate_sweep import read_rows, records
from .squad_local import columns_table

HERE = Path(__file__).resolve().parent
RUN5 = HERE / "squad_local_rows" / "heldout-2026-11-25-run5.jsonl"
OUT = HERE.parents[1] / "benchmarks" / "results" / "span-choice-pair.jsonl"


def main(argv: list[str]) -> None:
    from ragcore.embeddings import default_embedder
    from ragcore.llms.local import LocalLLM
    from ragcore.synthesis import Synthesizer
    from ragcore.synthesis.not_found import NotFoundGate
    from ragcore.trace import Trace
    from ragcore.types import Node, ScoredNode

    rows = read_rows(RUN5)[: int(argv[0]) if argv else None]
    llm = LocalLLM().with_embedder(default_embedder())  # the engines hand it the index's
    recording = NotFoundGate(refuses=False)
    arms = {"written": Synthesizer(llm, not_found_gate=recording),
            "span_choice": Synthesizer(llm, not_found_gate=recording, span_choice=True)}
    answered: dict[str, list[dict]] = {arm: [] for arm in arms}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w") as file:
        for n, row in enumerate(rows):
            nodes = [ScoredNode(Node(text=p), score=0.5) for p in row["passages"]]
            for arm in list(arms) if n % 2 == 0 else list(reversed(arms)):
                trace, started = Trace(), time.perf_counter()
                text = arms[arm].synthesize(row["question"], nodes, trace=trace).text
                gate = trace.notes["not_found_gate"]
                answered[arm].append({
                    **row, "arm": arm, "answer": text,
                    "seconds": time.perf_counter() - started,
                    "signals": gate.get("signals", row["signals"]),  # a kind the gate skips
                    "span_choice": trace.notes.get("span_choice")})
                file.write(json.dumps(answered[arm][-1]) + "\n")
                file.flush()
            sys.stderr.write(f"  {n + 1}/{len(rows)}\n")
    shipped = NotFoundGate()
    print(columns_table(f"SQuAD held-out run 5's {len(rows)} questions and passages", {
        "run 5 as recorded": measures(records(rows, shipped)),
        **{arm: measures(records(done, shipped)) for arm, done in answered.items()}}))


if __name__ == "__main__":
    main(sys.argv[1:])
