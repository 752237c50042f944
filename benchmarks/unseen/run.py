"""Run one half of the unseen question set through the app's defaults and score each reply as a
person reads it.

    python -m benchmarks.unseen.run --half tune [--limit N] [--llm local] [--no-judge]
                                    [--reading 250]

Indexes the half's files (every collection the half asks about, one index, the default
embedder; cached in ``benchmarks/.cache/unseen/``), then asks each question as
``benchmarks/answers/grounded_run`` does: the default query engine over that index with the
packaged local model, the text the app shows written by ``grounded_set.shown_text`` (the
grounding verdict, the model as its judge). A follow-up is asked as the Chat page asks it: the
question it follows, then the follow-up, through the app's chat engine
(``workspace.conversation.chat_engine`` with the default ``TurnSettings``: condense_plus_context,
hybrid search, top 4) with one memory; the follow-up's reply is shown the same way, checked
against the standalone question it was rewritten to, if it was (as the Chat page's
``checked_against``).
Each reply is scored by ``scoring.score``; rows go to ``benchmarks/results/unseen-<half>.jsonl``
and a table of outcomes per kind to stdout. Never run the test half while rules are being tuned.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from benchmarks.answers.corpus_index import app_index
from benchmarks.answers.grounded_set import diagnose, shown_text
from benchmarks.harness import write_jsonl
from benchmarks.unseen.scoring import OUTCOMES, holds_gold, is_right, score
from benchmarks.unseen.unseen_set import KINDS, UnseenQuestion, load_questions

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "benchmarks" / ".cache" / "unseen"
RESULTS = ROOT / "benchmarks" / "results"


def index_of(files: list[Path]):
    """The index of ``files``, built once as the app builds it (``corpus_index.app_index``)."""
    return app_index(files, CACHE)


def shown_row(question: UnseenQuestion, asked: str, reply, index, judge, started: float,
              trace, **extra) -> dict:
    """The row of one reply: what the app shows of it, its verdict, its score, and where the
    evidence got lost (not among the sources, or not in what the model read)."""
    reply.text  # noqa: B018 - the model writes while the stream is read: not the check's time
    answered = time.perf_counter()
    shown, listing = shown_text(reply.text, reply.source_nodes, question=asked,
                                embedder=index.embedder, judge=judge)
    checked = time.perf_counter()
    passages = [n.node.text for n in reply.source_nodes]
    scored = score(shown, question.gold, question.kind, passages)
    return {
        "id": question.id, "collection": question.collection, "kind": question.kind,
        "answerable": question.answerable, "question": question.question, **extra,
        "answer": reply.text, "shown": shown,
        "verdict": None if listing.verdict is None else listing.verdict.label,
        "outcome": scored.outcome, "right": is_right(scored.outcome, question.answerable),
        # the answerer's own text holds every gold item: what no check can add to
        "model_right": question.answerable and holds_gold(reply.text, question.gold,
                                                          question.kind),
        "found": list(scored.found), "invented_cited": list(scored.invented),
        "diagnosis": diagnose(question, passages, [
            "\n".join(m.content for m in call.messages) for call in trace.llm_calls]),
        "seconds": round(checked - started, 2),
        "check_seconds": round(checked - answered, 2),  # the verdict and its text, judge too
    }


def ask(question: UnseenQuestion, engine, index, judge) -> dict:
    """A question on its own, through the query engine."""
    from ragcore.trace import Trace

    started, trace = time.perf_counter(), Trace()
    reply = engine.query(question.question, trace=trace)
    return shown_row(question, question.question, reply, index, judge, started, trace,
                     decided_kind=trace.notes.get("question_kind"))


def ask_in_chat(first: UnseenQuestion, followup: UnseenQuestion, index, llm, judge) -> dict:
    """``first`` then ``followup`` in one chat, as the Chat page asks them; the follow-up's row."""
    from ragcore.memory import ChatMemory
    from ragcore.trace import Trace
    from ragcore.workspace.conversation import TurnSettings, chat_engine

    engine, memory = chat_engine(index, TurnSettings(), llm), ChatMemory.from_llm(llm)
    opening = engine.chat(first.question, memory)
    opening_text = opening.text  # drained: the memory now holds the first exchange
    started, trace = time.perf_counter(), Trace()
    reply = engine.chat(followup.question, memory, trace=trace)
    reply.text  # noqa: B018 - drain the stream before the verdict reads it
    # checked as the Chat page checks it: as the standalone question it was rewritten to
    asked = trace.notes.get("condensed_question") or followup.question
    return shown_row(followup, asked, reply, index, judge, started, trace,
                     first_question=first.question, first_reply=opening_text,
                     condensed=trace.notes.get("condensed_question"),
                     condense_note=trace.notes.get("condense_rejected")
                     or trace.notes.get("condense_skipped"))


def run(half: str, llm_spec: str, limit: int | None, judge: bool = True,
        reading: int | None = None) -> list[dict]:
    """Every question of ``half`` asked; ``reading`` fixes the packaged model's reading budget
    (the passage tokens it reads, else fitted to the machine's measured pace: a slower machine
    reads less and answers otherwise, so a figure meant to hold elsewhere fixes it)."""
    from ragcore.llms.local import LocalLLM
    from ragcore.llms.resolve import resolve_llm

    questions = load_questions(half=half)
    files = sorted({p for q in questions for p in q.paths()})
    by_id = {q.id: q for q in questions}
    llm = LocalLLM(reading_tokens=reading) if reading else resolve_llm(llm_spec)
    index = index_of(files)
    engine = index.as_query_engine(llm=llm)
    rows = []
    for question in questions[:limit]:
        if question.follows:
            row = ask_in_chat(by_id[question.follows], question, index, llm, judge and llm)
        else:
            row = ask(question, engine, index, judge and llm)
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("id", "kind", "outcome", "seconds")}),
              flush=True)
    return rows


def table(rows: list[dict]) -> str:
    """Outcomes per kind, counts and percentages; right = the answer, or a refusal when the
    documents don't answer."""
    head = f"{'kind':<14}{'n':>4}{'right':>11}" + "".join(f"{o:>18}" for o in OUTCOMES)
    lines = [head, "-" * len(head)]
    groups = [(k, [r for r in rows if r["kind"] == k]) for k in KINDS]
    groups += [("answerable", [r for r in rows if r["answerable"]]),
               ("not answered", [r for r in rows if not r["answerable"]]), ("all", rows)]
    for name, group in groups:
        if not group:
            continue
        counts = Counter(r["outcome"] for r in group)
        right = sum(r["right"] for r in group)
        lines.append(f"{name:<14}{len(group):>4}{_cell(right, len(group)):>11}" +
                     "".join(f"{_cell(counts[o], len(group)):>18}" for o in OUTCOMES))
    lines += ceiling(rows)
    invented = sum(bool(r["invented_cited"]) for r in rows)
    lines.append(f"replies with an invented list item cited: {invented}/{len(rows)}")
    seconds = sorted(r["seconds"] for r in rows)
    lines.append(f"median seconds a reply: {seconds[len(seconds) // 2]:.1f}" if seconds else "")
    checks = sorted(r["check_seconds"] for r in rows if "check_seconds" in r)
    if checks:
        lines.append(f"median seconds the check adds: {checks[len(checks) // 2]:.2f} "
                     f"(max {checks[-1]:.2f})")
    return "\n".join(lines)


def ceiling(rows: list[dict]) -> list[str]:
    """What the answerer gave the check to work with: the answerable replies whose model text
    held every gold item (right and vouched can pass it only by quoting the passages), and
    where the evidence of the others was lost (``diagnosis``). Rows made before the field
    (``model_right``) give nothing."""
    answerable = [r for r in rows if r["answerable"] and "model_right" in r]
    if not answerable:
        return []
    own = sum(r["model_right"] for r in answerable)
    lost = Counter(r["diagnosis"].get("missed_at") or "none (read, answered wrong)"
                   for r in answerable if not r["model_right"])
    where = ", ".join(f"{stage}: {count}" for stage, count in sorted(lost.items()))
    return [f"answerable replies whose model text holds every gold item: "
            f"{_cell(own, len(answerable))}; the others' evidence lost at {where or '-'}"]


def _cell(count: int, total: int) -> str:
    return f"{count} ({100 * count / total:.0f}%)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", required=True, choices=("tune", "test"))
    parser.add_argument("--llm", default="local")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--no-judge", action="store_true", help="check without the model")
    parser.add_argument("--tag", default="", help="rows to unseen-<half>-<tag>.jsonl")
    parser.add_argument("--reading", type=int, default=None,
                        help="the packaged model's reading budget, fixed (e.g. 250, the idle one)")
    args = parser.parse_args()
    rows = run(args.half, args.llm, args.limit, judge=not args.no_judge, reading=args.reading)
    out = RESULTS / f"unseen-{args.half}{'-' + args.tag if args.tag else ''}.jsonl"
    write_jsonl(out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
