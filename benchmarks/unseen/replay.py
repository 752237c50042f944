"""Replay a run's answers through today's check, without the model writing them again.

    python -m benchmarks.unseen.replay benchmarks/unseen/after-tune-run1.jsonl [--judge]

Each row's question (a follow-up: the standalone question it was rewritten to) is searched again
with the default query engine over the same index, and the row's recorded answer is checked and
shown as ``run.shown_row`` shows it. What changes from the run is only the check (and, for a
follow-up, the passages: the query engine's search, not the chat engine's hybrid top 4), so a
rule's effect is seen in a minute instead of a run's twenty. Without ``--judge`` the model is not
asked about undecided claims: a replay's figures are a rule's direction, the run's are its result.
Never replay the test half's rows while rules are being tuned; ``--final`` replays them once,
to measure a new check on answers nobody tuned on.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks.answers.grounded_set import shown_text
from benchmarks.unseen.run import index_of, table
from benchmarks.unseen.scoring import is_right, score
from benchmarks.unseen.unseen_set import load_questions

# The budget an idle machine's two threads read at (``llms.local.pace.MAX_READING_TOKENS``)
READING = 250


def replay(rows: list[dict], judge: bool, final: bool = False) -> list[dict]:
    """``rows`` checked again; each keeps its answer, with the new shown text and outcome
    (the test half's only with ``final``: its one measure of a new check)."""
    by_id = {q.id: q for q in load_questions()}
    questions = [by_id[r["id"]] for r in rows]
    if any(q.half == "test" for q in questions) and not final:
        raise SystemExit("the test half is measured once, not replayed (--final: that once)")
    files = sorted({p for q in questions for p in q.paths()})
    index = index_of(files)
    llm = None
    if judge:
        from ragcore.llms.resolve import resolve_llm
        llm = resolve_llm("local")
    engine = index.as_query_engine(llm=llm or fixed_reader())
    out = []
    for row, question in zip(rows, questions):
        asked = row.get("condensed") or question.question
        started = time.perf_counter()
        nodes = engine.retrieve(asked)
        shown, listing = shown_text(row["answer"], nodes, question=asked,
                                    embedder=index.embedder, judge=llm,
                                    held=lambda name: index.keyword_index().holds(name))
        scored = score(shown, question.gold, question.kind, [n.node.text for n in nodes])
        out.append({**row, "shown": shown,
                    "verdict": None if listing.verdict is None else listing.verdict.label,
                    "outcome": scored.outcome,
                    "right": is_right(scored.outcome, question.answerable),
                    "found": list(scored.found), "invented_cited": list(scored.invented),
                    "was": row["outcome"], "check_seconds": round(time.perf_counter() - started, 2)})
    return out


def fixed_reader(tokens: int = READING):
    """The packaged model with a fixed reading budget: the passages a question is read with
    depend on the budget, which the model fits to the machine's measured pace (a busy machine
    reads fewer), so a replay beside other work would check answers against fewer passages than
    the run read."""
    from ragcore.llms.local import LocalLLM

    return LocalLLM(reading_tokens=tokens)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--judge", action="store_true", help="the packaged model as the judge")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--final", action="store_true",
                        help="the test half's one measure of a new check, on recorded answers")
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines()]
    new = replay(rows, args.judge, args.final)
    for row in new:
        if row["outcome"] != row["was"]:
            print(f"{row['id']} {row['kind']:<12} {row['was']:>14} -> {row['outcome']:<14} "
                  f"{row['shown'][:140]!r}")
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in new),
                            encoding="utf-8")
    print(table(new))


if __name__ == "__main__":
    main()
