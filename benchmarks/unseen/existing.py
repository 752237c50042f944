"""The existing question set (``benchmarks/answers/grounded_questions.jsonl``) scored as the unseen
set is: each reply of a ``grounded_run`` as a person reads it (``scoring.score``), so the two sets'
figures stand side by side.

    python -m benchmarks.unseen.existing benchmarks/answers/grounded_rows/*-run25.jsonl

The rows hold no passages, so a cited list item is not checked for invention here (the unseen
runs check it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.answers.grounded_set import load_questions
from benchmarks.unseen.run import table
from benchmarks.unseen.scoring import holds_gold, is_right, score


def scored(rows: list[dict]) -> list[dict]:
    """``rows`` (a ``grounded_run``'s) with the outcome a person reads in each."""
    gold = {q.id: q for q in load_questions()}
    out = []
    for row in rows:
        question = gold[row["id"]]
        answerable = question.kind != "unanswerable"
        outcome = score(row["shown"], question.gold, question.kind).outcome
        model_right = answerable and holds_gold(row.get("answer") or "", question.gold,
                                                question.kind)
        out.append({**row, "answerable": answerable, "outcome": outcome, "invented_cited": [],
                    "right": is_right(outcome, answerable), "model_right": model_right})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+")
    rows = [json.loads(line) for path in parser.parse_args().rows
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(table(scored(rows)))


if __name__ == "__main__":
    main()
