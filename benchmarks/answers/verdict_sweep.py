"""The grounding verdict as a second refusal, offline, on recorded SQuAD rows: its trade-off curve.

``squad_local.py`` records the packaged model's unrefused answer, the passages it read and the
not-found gate's signals for each held-out question. Here each row is shown as the app shows it:
refused by the shipped gate, else checked by ``ragcore.grounding`` (the index's embedding model,
the question, the passages) and, for a factoid whose first claim the verdict does not support,
replaced by "The documents don't say ...". The figures of what a person is shown come from the
app's own text (``grounded_set.shown_text``: the gate, then the listing the verdict writes,
refused when its first sentence says the documents do not hold the answer, as ``grounded_set``
scores its questions): "**Quantum of Solace**. Not found in the documents." is shown as a
refusal, though the verdict, which reads no claim in a refusal, leaves the name unverified and
its label is not "unsupported". Nothing is fitted on these rows: the verdict's weights come from
the labelled claims (``benchmarks/grounding``), the gate's from training questions.

    python -m benchmarks.answers.verdict_sweep benchmarks/answers/squad_local_rows/heldout-...jsonl

Prints, at the shipped threshold and along the curve (refuse when the first claim's chance is
below t), the refusal of unanswerable questions, false "not found" on answerable ones, the
short-answer F1 over answerable ones (a refusal scores 0) and the verdict's time per answer.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from benchmarks.answers.answer_measures import says_not_found, short_answer
from benchmarks.answers.gate_sweep import gate_refuses, read_rows
from benchmarks.answers.grounded_set import refused_first, shown_text
from benchmarks.answers.squad import token_f1
from ragcore.grounding import QuestionKind, question_kind
from ragcore.synthesis.not_found import NotFoundGate
from ragcore.types import Node, ScoredNode


def judged(rows: list[dict], embedder, judge=None) -> list[dict]:
    """Per row: answerable, gate refusal, first-claim chance (1 when nothing to check), whether
    it states a fact no passage holds, whether what the app shows refuses, F1 of the answer as
    written, the seconds the app's verdict and text take. The verdict is the app's own
    (``grounded_set.shown_text``), computed once; the text scored is the one ``squad_local``
    recorded when the answer was written (the judge asked in that answer's prompt), if any."""
    gate = NotFoundGate()
    out = []
    for row in rows:
        answerable = bool(row["golds"])
        refused = gate_refuses(row, gate) or says_not_found(row["answer"])
        nodes = [ScoredNode(Node(text=passage), 1.0) for passage in row["passages"]]
        started = time.perf_counter()
        shown, listing = shown_text(row["answer"], nodes, question=row["question"],
                                    embedder=embedder, judge=judge)
        seconds = time.perf_counter() - started
        if row.get("shown") is not None:
            shown = row["shown"]
        verdict = listing.verdict
        factoid = question_kind(row["question"]) is QuestionKind.FACTOID
        lead = verdict.claims[0] if verdict is not None and verdict.claims and factoid else None
        chance = lead.score if lead is not None else 1.0
        label = verdict.label if verdict is not None else ""
        out.append({"answerable": answerable, "gate": refused, "chance": chance,
                    "missing": bool(lead is not None and lead.missing),
                    "shipped": label == "unsupported" and factoid,
                    "shown": refused or refused_first(shown),
                    "f1": token_f1(short_answer(row["answer"]), row["golds"]) if answerable
                    else 0.0, "seconds": seconds, "label": label})
    return out


def at(items: list[dict], threshold: float) -> tuple[float, float, float]:
    """(refusal of unanswerable, false not-found, F1 of answerable) refusing below threshold."""
    refuse = [i["gate"] or i["missing"] or i["chance"] < threshold for i in items]
    unanswerable = [r for r, i in zip(refuse, items) if not i["answerable"]]
    answerable = [(r, i) for r, i in zip(refuse, items) if i["answerable"]]
    return (sum(unanswerable) / max(1, len(unanswerable)),
            sum(r for r, _ in answerable) / max(1, len(answerable)),
            100 * statistics.mean(0.0 if r else i["f1"] for r, i in answerable)
            if answerable else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--judge", action="store_true", help="the packaged model judges too")
    args = parser.parse_args()
    from ragcore.embeddings.packaged import default_embedder
    from ragcore.llms.resolve import resolve_llm

    judge = resolve_llm("local") if args.judge else None
    items = judged(read_rows(args.rows), default_embedder(), judge)
    print(f"{len(items)} rows; verdict seconds median "
          f"{statistics.median(i['seconds'] for i in items):.3f}, max "
          f"{max(i['seconds'] for i in items):.3f}")
    gate_only = at([dict(i, missing=False) for i in items], 0.0)
    shipped = _shipped(items)
    print("                           refusal  false-nf  F1")
    print(f"gate alone                  {gate_only[0]:6.1%}  {gate_only[1]:6.1%}  "
          f"{gate_only[2]:5.1f}")
    print(f"gate + shipped verdict      {shipped[0]:6.1%}  {shipped[1]:6.1%}  {shipped[2]:5.1f}")
    shown = _shown(items)
    print(f"what the app shows          {shown[0]:6.1%}  {shown[1]:6.1%}  {shown[2]:5.1f}")
    print("curve (refuse a factoid whose first claim states a fact no passage holds or whose "
          "chance is below t: refusal, false not-found, F1):")
    for threshold in sorted({round(i["chance"], 2) for i in items} | {0.0}):
        refusal, false_nf, f1 = at(items, threshold)
        print(f"  {threshold:.2f}: {refusal:6.1%} {false_nf:6.1%} {f1:5.1f}")


def _shipped(items: list[dict]) -> tuple[float, float, float]:
    """The figures of what the app shows: refused by the gate, or replaced by the verdict."""
    return at([dict(i, missing=i["shipped"], chance=1.0) for i in items], 0.0)


def _shown(items: list[dict]) -> tuple[float, float, float]:
    """The figures of the text the app shows (a refusal scores F1 0)."""
    return at([dict(i, gate=i["shown"], missing=False, chance=1.0) for i in items], 0.0)


if __name__ == "__main__":
    main()
