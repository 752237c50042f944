"""The grounded question set asked in the Chat page's way: each question the first turn of a new
chat in the default mode (``condense_plus_context``, the packaged model, the check on), what a
person is shown judged as ``grounded_run`` judges the query engine's.

    python -m benchmarks.llm.grounded_chat --half held-out [--kinds factoid,unanswerable]

Written for issue 65's chat reply begun with its bold short answer (measured on both halves and
taken back: ``benchmarks/llm/README.md``), before it was judged: the set's questions were written
before any chat rule was, and its halves are fixed by the question's number (odd: held out,
reported once; even: for tuning). Per question: what is shown, whether it refuses first, the gold found in it, the
seconds to the shown text, the tokens the model wrote, and whether the reply was written again
(``redrafted``). Rows go to ``benchmarks/results/grounded-chat-<half>.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

from benchmarks.answers.grounded_run import RESULTS, in_collection, index_of
from benchmarks.answers.grounded_set import items_found, load_questions, refused_first
from benchmarks.harness import write_jsonl


def half_of(question_id: str) -> str:
    """The question's half: "held-out" for an odd number ("g59"), "tuning" for an even one."""
    return "held-out" if int(question_id.lstrip("g")) % 2 else "tuning"


def run(half: str, kinds: set[str]) -> list[dict]:
    from ragcore.engines.from_index import chat_engine_from_index
    from ragcore.llms.local import LocalLLM
    from ragcore.memory import ChatMemory
    from ragcore.trace import Trace

    chosen = [q for q in load_questions() if q.kind in kinds and half_of(q.id) == half]
    by_collection = defaultdict(list)
    for question in chosen:
        by_collection[question.collection].append(question)
    llm, rows = LocalLLM(), []
    for collection, questions in by_collection.items():
        index = index_of(in_collection(collection)[1], collection)
        chat = chat_engine_from_index(index, chat_mode="condense_plus_context", llm=llm)
        for question in questions:
            trace = Trace()
            began = time.perf_counter()
            response = chat.chat(question.question, ChatMemory.from_llm(llm), trace=trace)
            shown = response.shown
            rows.append({
                "id": question.id, "kind": question.kind, "question": question.question,
                "reply": response.text, "shown": shown, "refused_first": refused_first(shown),
                "found": items_found(question, shown),
                "seconds": round(time.perf_counter() - began, 2),
                "written": sum(c.tokens_out for c in trace.llm_calls),
                "redrafted": trace.notes.get("redrafted"),
            })
            print(json.dumps(rows[-1], ensure_ascii=False)[:300], flush=True)
    return rows


def table(rows: list[dict]) -> str:
    answerable = [r for r in rows if r["kind"] != "unanswerable"]
    unanswerable = [r for r in rows if r["kind"] == "unanswerable"]
    seconds = sorted(r["seconds"] for r in rows)
    return "\n".join([
        f"answerable shown with the gold, not refused: "
        f"{sum(all(r['found']) and not r['refused_first'] for r in answerable)}/{len(answerable)}",
        f"answerable refused first: {sum(r['refused_first'] for r in answerable)}",
        f"unanswerable refused first: {sum(r['refused_first'] for r in unanswerable)}/"
        f"{len(unanswerable)}",
        f"seconds: median {seconds[len(seconds) // 2]:.1f}, sum {sum(seconds):.0f}; tokens "
        f"written {sum(r['written'] for r in rows)}; written again "
        f"{sum(bool(r['redrafted']) for r in rows)}",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", choices=("held-out", "tuning"), required=True)
    parser.add_argument("--kinds", default="factoid,unanswerable")
    parser.add_argument("--tag", default="", help="a name for the rows' file (the arm)")
    args = parser.parse_args()
    rows = run(args.half, set(args.kinds.split(",")))
    out = RESULTS / f"grounded-chat-{args.half}{'-' + args.tag if args.tag else ''}.jsonl"
    write_jsonl(out, rows)
    print(table(rows))


if __name__ == "__main__":
    main()
