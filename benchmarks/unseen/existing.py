"""The existing question set (``benchmarks/answers/grounded_questions.jsonl``) scored as the unseen
set is: each reply of a ``grounded_run`` as a person reads it (``scoring.score``), so the two sets'
figures stand side by side.

    python -m benchmarks.unseen.existing benchmarks/answers/grounded_rows/*-run25.jsonl
    python -m benchmarks.unseen.existing --replay benchmarks/answers/grounded_rows/*-run26.jsonl

The rows hold no passages, so a cited list item is not checked for invention here (the unseen
runs check it). ``--replay`` shows each recorded answer again through today's check (the
question searched again by the default query engine over its collection's index, read at the
idle budget, no judge),
as ``benchmarks.unseen.replay`` does for the unseen set: a new check measured on the answers
the run recorded.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.answers.grounded_set import load_questions
from benchmarks.harness import write_jsonl
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


def replayed(rows: list[dict]) -> list[dict]:
    """``rows`` with each answer shown again by today's check over its collection's index."""
    from benchmarks.answers.grounded_run import in_collection, index_of
    from benchmarks.answers.grounded_set import shown_text
    from benchmarks.unseen.replay import fixed_reader

    by_id = {q.id: q for q in load_questions()}
    engines: dict[str, tuple] = {}
    out = []
    for row in rows:
        collection = by_id[row["id"]].collection
        if collection not in engines:
            index = index_of(in_collection(collection)[1], collection)
            engines[collection] = (index, index.as_query_engine(llm=fixed_reader()))
        index, engine = engines[collection]
        nodes = engine.retrieve(row["question"])
        shown, _ = shown_text(row["answer"], nodes, question=row["question"],
                              embedder=index.embedder,
                              held=lambda name: index.keyword_index().holds(name))
        out.append({**row, "shown": shown, "was_shown": row["shown"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--replay", action="store_true",
                        help="each recorded answer shown again through today's check")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rows = [json.loads(line) for path in args.rows
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = scored(replayed(rows) if args.replay else rows)
    if args.out:
        write_jsonl(args.out, rows)
    print(table(rows))
    right = sum(r["model_right"] for r in rows)
    print(f"the model's own text right: {right} of "
          f"{sum(r['answerable'] for r in rows)} answerable")


if __name__ == "__main__":
    main()
