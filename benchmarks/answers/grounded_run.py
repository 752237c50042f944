"""Run the grounded question set (``grounded_questions.jsonl``) through the default engine and
show what a person would be shown: the answer as its grounding verdict allows it.

    python -m benchmarks.answers.grounded_run --file NIST.SP.800-218.pdf [--llm local] [--limit N]
    python -m benchmarks.answers.grounded_run --collection rfcs
    python -m benchmarks.answers.grounded_run --collection rfcs --span-choice
    python -m benchmarks.answers.grounded_run --collection rfcs --judge-both

For the questions over one corpus file (and the unanswerable ones of its collection that name
it or its subject), or over one collection (the files its questions name, and all its
unanswerable questions), it indexes the files (cached in ``benchmarks/.cache/grounded/``), asks each
question with the query engine (compact mode), cites the answer against its sources as the app
and CLI do (``present.sources.answer_sources`` then ``present.markers.mark_listing``), and
records per question: the kind decided, the verdict, whether the first sentence refuses, the
gold items found in what is shown, where a miss came from (``grounded_set.diagnose``: not
retrieved, or cut before the model read it) and the seconds. With ``--span-choice`` each
question is also asked with factoid answers chosen among the passages' phrases
(``synthesis.span_choice``), the two arms taking turns to go first, and a table is printed for
each. With ``--judge-both`` each answer's verdict is also computed with the judge asked afresh
(the claim's window, as for an answer another model wrote) besides the shipped way (in the
answer's own prompt), the two taking turns to go first, and both times are recorded
(``verdict_seconds``, ``verdict_seconds_afresh``): their ratio, measured in one run. Rows go to
``benchmarks/results/grounded-<file>.jsonl``; the table goes to stdout.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

from benchmarks.answers.corpus_index import app_index
from benchmarks.harness import corpus_dir, write_jsonl
from benchmarks.answers.grounded_set import (
    diagnose,
    items_found,
    load_questions,
    refused_first,
    shown_text,
)

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "benchmarks" / ".cache" / "grounded"
RESULTS = ROOT / "benchmarks" / "results"


def chosen(file: str) -> list:
    questions = load_questions()
    own = [q for q in questions if file in q.files]
    collection = {q.collection for q in own}
    subject = ("SSDF", "NIST", "800-218") if "800-218" in file else (Path(file).stem,)
    unanswerable = [q for q in questions if q.kind == "unanswerable"
                    and q.collection in collection and any(s in q.question for s in subject)]
    return own + unanswerable


def in_collection(collection: str) -> tuple[list, list[Path]]:
    """A collection's questions and the files they name."""
    questions = [q for q in load_questions() if q.collection == collection]
    files = sorted({corpus_dir() / collection / f for q in questions for f in q.files})
    return questions, files


def index_of(files: list[Path], name: str):
    """The index of ``files`` (a collection's, ``name``), built once as the app builds it
    (``corpus_index.app_index``)."""
    return app_index(files, CACHE / name)


def run(file: str, llm_spec: str, limit: int | None, judge: bool = True,
        collection: str = "", reading: int | None = None, span_choice: bool = False,
        both: bool = False) -> list[dict]:
    from ragcore.llms.resolve import resolve_llm
    from ragcore.synthesis import Synthesizer

    if collection:
        questions, files = in_collection(collection)
        index = index_of(files, collection)
    else:
        questions, path = chosen(file), next(corpus_dir().rglob(file))
        index = index_of([path], path.stem)
    questions = questions[:limit]
    llm = resolve_llm(llm_spec)
    if reading is not None:  # a fixed reading budget in place of the measured one
        from ragcore.llms.local import LocalLLM

        llm = LocalLLM(llm.name, reading_tokens=reading)
    engine = index.as_query_engine(llm=llm)
    arms = {"written": engine}
    if span_choice:  # the same engine, its synthesizer choosing factoid answers among spans
        chooser = copy.copy(engine)
        chooser.synthesizer = Synthesizer(engine.synthesizer.llm, span_choice=True)
        arms["span_choice"] = chooser
    rows = []
    for number, question in enumerate(questions):
        # The arms take turns going first: the machine's load falls on both alike.
        order = list(arms) if number % 2 == 0 else list(reversed(arms))
        for arm in order:
            rows.append({**ask(arms[arm], question, index, llm, judge, both, number),
                         "arm": arm})
            print(json.dumps(rows[-1], ensure_ascii=False)[:400], flush=True)
    return rows


class Afresh:
    """The packaged model as a judge that does not remember writing the answer (no
    ``prompt_of``): the verdict asks it afresh, with the claim's window."""

    def __init__(self, llm) -> None:
        self.llm = llm
        self.model = getattr(llm, "model", "")

    def first_token_logprobs(self, messages, *, top: int = 10):
        return self.llm.first_token_logprobs(messages, top=top)


def ask(engine, question, index, llm, judge: bool, both: bool = False,
        number: int = 0) -> dict:
    """One question through ``engine``: what is shown, its verdict, the gold items found."""
    from ragcore.trace import Trace

    trace = Trace()
    started = time.perf_counter()
    response = engine.query(question.question, trace=trace)
    answer = response.text
    answered = time.perf_counter()
    def verdict(judged):
        began = time.perf_counter()
        shown = shown_text(answer, response.source_nodes, question=question.question,
                           embedder=index.embedder, judge=judged)
        return shown, time.perf_counter() - began

    afresh_s = None
    if both and judge and number % 2 == 1:  # the arms take turns going first
        _, afresh_s = verdict(Afresh(llm))
    (shown, listing), checking = verdict(judge and llm)
    if both and judge and number % 2 == 0:
        _, afresh_s = verdict(Afresh(llm))
    seconds = answered - started + checking
    read = ["\n".join(m.content for m in call.messages) for call in trace.llm_calls]
    retrieved = engine.retriever.retrieve(question.question)
    return {
        "id": question.id, "kind": question.kind, "question": question.question,
        "decided_kind": trace.notes.get("question_kind"),
        "verdict": None if listing.verdict is None else listing.verdict.label,
        "answer": answer, "shown": shown, "refused_first": refused_first(shown),
        "found": items_found(question, shown), "seconds": round(seconds, 2),
        "verdict_seconds": round(checking, 2),
        **({} if afresh_s is None else {"verdict_seconds_afresh": round(afresh_s, 2)}),
        "diagnosis": diagnose(question, [n.node.text for n in retrieved],
                              [str(m) for m in read]),
        "span_choice": trace.notes.get("span_choice"),
    }


def table(rows: list[dict]) -> str:
    answerable = [r for r in rows if r["kind"] in ("factoid", "list")]
    unanswerable = [r for r in rows if r["kind"] == "unanswerable"]
    overview = [r for r in rows if r["kind"] == "summary"]
    every = sum(all(r["found"]) for r in answerable)
    lines = [
        f"answerable with every gold item shown: {every}/{len(answerable)}",
        f"unanswerable refused in the first sentence: "
        f"{sum(r['refused_first'] for r in unanswerable)}/{len(unanswerable)}",
        f"summary or list requests refused: "
        f"{sum(r['refused_first'] for r in overview + [r for r in answerable if r['kind'] == 'list'])}",
        f"answerable refused: {sum(r['refused_first'] for r in answerable)}/{len(answerable)}",
        f"median seconds: {sorted(r['seconds'] for r in rows)[len(rows) // 2]:.1f}, of which "
        f"the verdict {sorted(r['verdict_seconds'] for r in rows)[len(rows) // 2]:.2f}",
        *([f"verdict seconds, median: in the answer's prompt "
           f"{sorted(r['verdict_seconds'] for r in timed)[len(timed) // 2]:.2f}, afresh "
           f"{sorted(r['verdict_seconds_afresh'] for r in timed)[len(timed) // 2]:.2f}"]
          if (timed := [r for r in rows if "verdict_seconds_afresh" in r]) else []),
        "verdicts: " + ", ".join(f"{v} {sum(r['verdict'] == v for r in rows)}"
                                 for v in sorted({str(r['verdict']) for r in rows})),
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default="NIST.SP.800-218.pdf")
    parser.add_argument("--collection", default="", help="every question of a collection")
    parser.add_argument("--llm", default="local")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--no-judge", action="store_true", help="check without the model")
    parser.add_argument("--reading", type=int, default=None,
                        help="passage tokens the packaged model reads (default: fitted)")
    parser.add_argument("--judge-both", action="store_true",
                        help="also time each verdict with the judge asked afresh (a ratio)")
    parser.add_argument("--span-choice", action="store_true",
                        help="also ask each question with factoid answers chosen among the "
                             "passages' phrases (the arms alternate; a table for each)")
    args = parser.parse_args()
    rows = run(args.file, args.llm, args.limit, judge=not args.no_judge,
               collection=args.collection, reading=args.reading, span_choice=args.span_choice,
               both=args.judge_both)
    name = args.collection or Path(args.file).stem
    budget = "" if args.reading is None else f"-reading{args.reading}"
    budget += "-spanchoice" if args.span_choice else ""
    budget += "-judgeboth" if args.judge_both else ""
    out = RESULTS / f"grounded-{name}-{args.llm.replace(':', '_')}{budget}.jsonl"
    write_jsonl(out, rows)
    for arm in dict.fromkeys(r["arm"] for r in rows):
        print(f"-- {arm}\n{table([r for r in rows if r['arm'] == arm])}")


if __name__ == "__main__":
    main()
