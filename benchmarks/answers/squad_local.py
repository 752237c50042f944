"""The packaged language model (and the extractive answerer beside it) on SQuAD 2.0, as a user asks.

Data: SQuAD 2.0's *training* split (Rajpurkar, Jia & Liang 2018, CC BY-SA 4.0; files and split
in ``squad/README.md``), two disjoint parts of it, and its dev split:

- held-out (default): a fixed, seeded subsample of ``squad.heldout_questions()`` (the 3
  held-out articles no model is fitted or calibrated on), asked over the held-out index of
  ``squad_heldout.py`` (every paragraph of those articles);
- ``--calibrate``: a seeded sample of the questions of ``CALIBRATION_ARTICLE``, the one
  training article with unanswerable questions (SQuAD 2.0's), over an index of its
  paragraphs. Only these questions set the not-found gate's weights and threshold
  (``gate_sweep``). The extractive answerer's models were fitted on this article too, so its
  answerability (the gate's ``p_answered``) is surer there than on unseen text: the held-out
  questions show what the gate fitted this way does;
- ``--calibrate-whole``: the same article's questions answered whole and checked (what the app
  shows), rows for fitting the check's rules on training questions;
- ``--official-dev``: a seeded sample of SQuAD 2.0's official *dev* split (its first two
  articles, ``squad/dev.jsonl``), never tuned on: 200 answerable + 100 unanswerable.

Each held-out question goes through the default ``index.as_query_engine`` twice in one run:
with ``LocalLLM()`` (the packaged Qwen2.5-Coder-1.5B-Instruct; its gate records its signals but
never refuses, so one run serves every threshold) and with ``ExtractiveLLM()``. One jsonl row
per question (answers, passages, the gate's signals, top passage score, seconds, time to first
token, and what the Query page shows of the answer with its verdict) goes to
``benchmarks/results/squad-local-{heldout,calibration}-latest.jsonl``; the tables apply the
shipped gate to those rows (exactly what the engine does) and sweep its threshold. Calibration
rows stop at the first answer token: the gate's signals are all they need.

    python -m benchmarks.answers.squad_local --calibrate    # 60 + 60 questions, signals only
    python -m benchmarks.answers.squad_local --calibrate-whole  # 100 + 100, answered, checked
    python -m benchmarks.answers.squad_local --official-dev # 200 + 100 of SQuAD's dev split
    python -m benchmarks.answers.squad_local                # 40 + 20 held-out questions
    python -m benchmarks.answers.squad_local --top-k 2      # the local model given 2 passages

About 15-25 s a question on 2 busy cores, hence the subsamples (the full held-out set is
300 + 60 questions).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Sequence

from training.answerer.squad import training_articles  # the calibration article is a training one

from .answer_measures import markdown_table, measures
from .corpus_index import CACHE_DIR
from .squad import HeldOutQuestion, dev_paragraphs, dev_questions, heldout_questions

SEED = 32
HELDOUT_SIZES = (40, 20)  # answerable, unanswerable
CALIBRATION_SIZES = (60, 60)
CALIBRATION_ARTICLE = "The_Legend_of_Zelda:_Twilight_Princess"
DEV_SIZE = 40  # --dev: answerable questions of the calibration article (a training article)
OFFICIAL_DEV_SIZES = (200, 100)  # --official-dev: SQuAD 2.0's dev split (``squad/dev.jsonl``)
# --calibrate-whole: the calibration article's questions answered whole and checked, for fitting
# the check's rules on training questions (the gate's calibration rows stop at the first token)
WHOLE_CALIBRATION_SIZES = (100, 100)


def sample(questions: Sequence[HeldOutQuestion], sizes: tuple[int, int]) -> list[HeldOutQuestion]:
    """A fixed, seeded subsample: ``sizes`` answerable and unanswerable questions, shuffled so
    that a run stopped early is still a mix of both."""
    rng = random.Random(SEED)
    good = [q for q in questions if not q.is_impossible]
    bad = [q for q in questions if q.is_impossible]
    chosen = rng.sample(good, min(sizes[0], len(good))) + rng.sample(bad, min(sizes[1], len(bad)))
    rng.shuffle(chosen)
    return chosen


def calibration_set() -> tuple[list[dict], list[HeldOutQuestion]]:
    """The calibration article's paragraphs and questions (a SQuAD 2.0 training article)."""
    paragraphs, questions = [], []
    for article in training_articles():
        if article.get("title") != CALIBRATION_ARTICLE:
            continue
        for n, para in enumerate(article["paragraphs"]):
            pid = f"{article['title']}-{n}"
            paragraphs.append({"id": pid, "title": article["title"], "text": para["context"]})
            for qa in para["qas"]:
                golds = tuple(dict.fromkeys(a["text"] for a in qa.get("answers", [])))
                questions.append(HeldOutQuestion(qa["id"], article["title"], qa["question"],
                                                 golds, pid, bool(qa.get("is_impossible"))))
    return paragraphs, questions


def calibration_index(paragraphs: list[dict], name: str = "calibration"):
    """An index of the calibration (or ``name``'s) paragraphs, cached under
    ``benchmarks/.cache/``."""
    from ragcore import Document, VectorStoreIndex

    digest = hashlib.sha256(json.dumps(paragraphs, sort_keys=True).encode()).hexdigest()[:16]
    folder = CACHE_DIR / f"squad-{name}-index-{digest}"
    if folder.is_dir():
        return VectorStoreIndex.load(folder)
    sys.stderr.write(f"  indexing {len(paragraphs)} {name} paragraphs (once; cached)\n")
    index = VectorStoreIndex.from_documents(
        [Document(text=p["text"], doc_id=p["id"], metadata={"title": p["title"]})
         for p in paragraphs])
    index.persist(folder)
    return index


def gate_engine(index, llm, top_k: int | None = None, *, prefill: bool = True,
                span_choice: bool = False):
    """The default query engine of ``index`` for ``llm`` (``top_k`` passages, else the default),
    its gate recording but never refusing; ``prefill=False``: the model's reply is not begun
    with the answer prompt's "**" (as before 2026-11-25, run 5); ``span_choice``: factoid answers
    are chosen among the passages' phrases (``synthesis.span_choice``)."""
    import dataclasses

    from ragcore.prompts.answer import QA, SynthesisPrompts
    from ragcore.query import QueryEngine
    from ragcore.synthesis import Synthesizer
    from ragcore.synthesis.not_found import NotFoundGate

    default = index.as_query_engine(llm=llm, **({"similarity_top_k": top_k} if top_k else {}))
    prompts = SynthesisPrompts(qa=QA if prefill else dataclasses.replace(QA, prefill=""))
    synthesizer = Synthesizer(default.synthesizer.llm, not_found_gate=NotFoundGate(refuses=False),
                              prompts=prompts, span_choice=span_choice)
    return QueryEngine(default.retriever, synthesizer, postprocessors=default.postprocessors)


def ask_local(engine, q: HeldOutQuestion, *, whole: bool, embedder=None) -> dict:
    """One question through the gated engine: signals, time to first token, and (``whole``)
    the answer and what the app shows of it (``shown_of``)."""
    started = time.perf_counter()
    response = engine.query(q.question)
    chunks = iter(response)
    first = next(chunks, "")
    ttft = time.perf_counter() - started
    answer = first + "".join(chunks) if whole else None
    if not whole:
        chunks.close()
    seconds = time.perf_counter() - started
    gate = response.metadata.get("not_found_gate", {})
    passages = [s.node.text for s in response.source_nodes]
    scores = [s.score for s in response.source_nodes if s.score is not None]
    return {
        "id": q.id, "question": q.question, "golds": list(q.answers),
        "answer": answer, "passages": passages,
        "retrieved": q.paragraph in {s.node.ref_doc_id for s in response.source_nodes},
        "signals": gate.get("signals"), "gate_seconds": gate.get("seconds"),
        "top_score": max(scores) if scores else None,
        "ttft": ttft, "seconds": seconds,
        "span_choice": response.trace.notes.get("span_choice"),
        **(shown_of(engine, response, answer, q.question, embedder) if whole else {}),
    }


def shown_of(engine, response, answer: str, question: str, embedder) -> dict:
    """What the Query page shows of ``answer`` (``grounded_set.shown_text``: the model judging
    in the prompt that wrote it, as in the app), the verdict's label and seconds."""
    from .grounded_set import shown_text

    started = time.perf_counter()
    shown, listing = shown_text(answer, response.source_nodes, question=question,
                                embedder=embedder, judge=engine.synthesizer.llm)
    return {"shown": shown, "verdict": None if listing.verdict is None else listing.verdict.label,
            "verdict_seconds": time.perf_counter() - started}


def ask_extractive(engine, q: HeldOutQuestion) -> dict:
    started = time.perf_counter()
    response = engine.query(q.question)
    text = response.text
    return {"extractive_answer": text, "extractive_seconds": time.perf_counter() - started,
            "extractive_stated_score": response.trace.notes.get("answer_score"),
            "extractive_passages": [s.node.text for s in response.source_nodes],
            "extractive_retrieved": q.paragraph in {s.node.ref_doc_id
                                                    for s in response.source_nodes}}


def run(questions: Sequence[HeldOutQuestion], index, out: Path, *, whole: bool,
        top_k: int | None = None, prefill: bool = True, span_choice: bool = False
        ) -> list[dict]:
    """Ask every question, writing each row to ``out`` as soon as it is measured."""
    from ragcore import ExtractiveLLM
    from ragcore.llms.local import LocalLLM

    local = gate_engine(index, LocalLLM(), top_k, prefill=prefill, span_choice=span_choice)
    plain = index.as_query_engine(llm=ExtractiveLLM())
    plain.query("What is solar energy?").text  # loads the embedding model: not a question's cost
    rows = []
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as file:
        for n, q in enumerate(questions, 1):
            row = ask_local(local, q, whole=whole, embedder=index.embedder)
            if whole:
                row.update(ask_extractive(plain, q))
            rows.append(row)
            file.write(json.dumps(row) + "\n")
            file.flush()
            sys.stderr.write(f"  {n}/{len(questions)} {row['ttft']:.1f} s to first token, "
                             f"{row['seconds']:.1f} s\n")
    return rows


def report(rows: list[dict]) -> str:
    """The issue's table for both answerers, the gate's trade-off curve and the signals' AUCs."""
    from ragcore.synthesis.not_found import NotFoundGate

    from .gate_sweep import SWEEP, curve_table, gated, records, signal_aucs, trade_off

    gate = NotFoundGate()
    good = sum(bool(r["golds"]) for r in rows)
    title = (f"SQuAD 2.0 held-out subsample (seed {SEED}): {good} answerable + "
             f"{len(rows) - good} unanswerable; default as_query_engine")
    columns = {
        "LocalLLM, gate": measures(records(rows, gate)),
        "LocalLLM, gate never refusing": measures(records(rows, NotFoundGate(refuses=False))),
        "ExtractiveLLM": measures(records(rows, gate, answerer="extractive")),
    }
    table = columns_table(title, columns)
    ttft = statistics.median(r["ttft"] for r in rows)
    calibration = gate.calibration  # the engine's: the index's embedder measures answerability
    curve = curve_table(trade_off(rows, calibration, sorted({*SWEEP, calibration.threshold})),
                        calibration.threshold)
    alone = {kind: 100 * statistics.mean(r["signals"]["model_refuses"] for r in gated(rows)
                                         if bool(r["golds"]) == kind) for kind in (False, True)}
    aucs = "\n".join(f"- AUC {k}: {v:.1f} %" for k, v in signal_aucs(rows, gate).items())
    return (f"{table}\n\nLocalLLM median time to first token: {ttft:.1f} s. Prompting "
            f"alone (the model's likeliest first token is 'Not'): {alone[False]:.1f} % of the "
            f"unanswerable, {alone[True]:.1f} % of the answerable questions.\n\n"
            f"Gate trade-off ({calibration}):\n\n{curve}\n\n{aucs}")


def columns_table(title: str, columns: dict[str, dict]) -> str:
    """The issue's measures, a column per answerer."""
    from .answer_measures import MEASURES, _cell

    lines = [f"**{title}**", "", "| measure | target | " + " | ".join(columns) + " |",
             "|---" * (len(columns) + 2) + "|"]
    for name, unit, target in MEASURES:
        cells = " | ".join(_cell(c[name], unit) for c in columns.values())
        lines.append(f"| {name} | {target} | {cells} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from benchmarks.harness import RESULTS_DIR

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calibrate", action="store_true",
                        help="record the calibration articles' signals (sets the gate)")
    parser.add_argument("--report-only", action="store_true",
                        help="print the tables from the last run's rows, without the model")
    parser.add_argument("--top-k", type=int, default=None,
                        help="passages the local model's engine retrieves (default: the engine's)")
    parser.add_argument("--dev", action="store_true",
                        help=f"{DEV_SIZE} answerable questions of the calibration article, whole "
                             "answers: for trying an answer change before the held-out run")
    parser.add_argument("--calibrate-whole", action="store_true",
                        help=f"{WHOLE_CALIBRATION_SIZES[0]} + {WHOLE_CALIBRATION_SIZES[1]} "
                             "questions of the calibration article answered whole and checked "
                             "(rows for fitting the check on training questions)")
    parser.add_argument("--official-dev", action="store_true",
                        help=f"{OFFICIAL_DEV_SIZES[0]} answerable + {OFFICIAL_DEV_SIZES[1]} "
                             "unanswerable questions of SQuAD 2.0's dev split, never tuned on")
    parser.add_argument("--no-prefill", action="store_true",
                        help="do not begin the model's reply with '**' (the answer before run 5)")
    parser.add_argument("--span-choice", action="store_true",
                        help="factoid answers chosen among the passages' phrases, not written")
    args = parser.parse_args(argv)
    which = ("calibration" if args.calibrate else "dev" if args.dev
             else "calibration-whole" if args.calibrate_whole
             else "official-dev" if args.official_dev else "heldout")
    if args.top_k:
        which += f"-top{args.top_k}"
    if args.no_prefill:
        which += "-no-prefill"
    if args.span_choice:
        which += "-spanchoice"
    out = RESULTS_DIR / f"squad-local-{which}-latest.jsonl"
    if args.dev:
        if not args.report_only:
            paragraphs, questions = calibration_set()
            run(sample(questions, (DEV_SIZE, 0)), calibration_index(paragraphs), out, whole=True,
                top_k=args.top_k, prefill=not args.no_prefill, span_choice=args.span_choice)
        from ragcore.synthesis.not_found import NotFoundGate

        from .gate_sweep import read_rows, records

        rows, gate = read_rows(out), NotFoundGate()
        print(columns_table(f"Dev: {len(rows)} answerable questions of {CALIBRATION_ARTICLE}", {
            "LocalLLM, gate": measures(records(rows, gate)),
            "ExtractiveLLM": measures(records(rows, gate, answerer="extractive"))}))
        return 0
    if args.calibrate:
        if not args.report_only:
            paragraphs, questions = calibration_set()
            run(sample(questions, CALIBRATION_SIZES), calibration_index(paragraphs), out,
                whole=False)
        from .gate_sweep import main as sweep

        return sweep([str(out), "--fit", str(out)])
    if not args.report_only and args.calibrate_whole:
        paragraphs, questions = calibration_set()
        run(sample(questions, WHOLE_CALIBRATION_SIZES), calibration_index(paragraphs), out,
            whole=True, top_k=args.top_k, prefill=not args.no_prefill,
            span_choice=args.span_choice)
    elif not args.report_only and args.official_dev:
        run(sample(dev_questions(), OFFICIAL_DEV_SIZES), calibration_index(dev_paragraphs(), "dev"),
            out, whole=True, top_k=args.top_k, prefill=not args.no_prefill,
            span_choice=args.span_choice)
    elif not args.report_only:
        from .squad_heldout import load_or_build_index

        index, _, _ = load_or_build_index()
        run(sample(heldout_questions(), HELDOUT_SIZES), index, out, whole=True, top_k=args.top_k,
            prefill=not args.no_prefill, span_choice=args.span_choice)
    from .gate_sweep import read_rows

    print(report(read_rows(out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
