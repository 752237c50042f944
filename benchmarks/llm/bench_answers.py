"""Answer quality of the offline answerer (``ExtractiveLLM``) on the question set of issue 9.

Each question of ``benchmarks/answers/questions.jsonl`` goes through
``index.as_query_engine(llm=ExtractiveLLM(), similarity_top_k=4, response_mode=mode)`` over the
cached benchmark index (``benchmarks/answers/corpus_index.py``). Per response mode:

- gold recall: the share of a question's gold strings the answer quotes (whitespace- and
  case-normalised), averaged over answerable questions; "all gold quoted" counts the questions
  whose answer holds every gold string;
- gold in context: the same share measured on the four retrieved chunks, the ceiling the
  synthesizer works under (a gold string the retriever missed cannot be quoted);
- answer length: words of the whole answer text, as a user reads it (label line included);
- "says it does not know": the answer's first line carries one of ``UNKNOWN_PHRASES``. Today
  these are the synthesizer's no-context reply ("I found nothing in the indexed documents ...
  cannot answer"), the extractive answerer's no-overlap reply ("... nothing to quote as an
  answer") and its no-passages reply ("no passages came with this message"), plus the usual
  phrasings of a language model. Only the first line is read, because the quotes that follow
  are corpus text ("The server has not found anything ..."), not the answerer's own words.
  Reported as the share of "none" questions answered so (wanted) and of answerable questions
  answered so (unwanted).

Compact (the default) is also broken down by question kind, and its answers are written to
``benchmarks/results/answers-latest.jsonl`` to compare before/after by hand. A quick run
measures compact only.

Issue 19's table (``answers/answer_measures.py`` defines each measure) is printed for two
question sets, the answerer beside a best-word-overlap sentence of the same passages:

- the corpus questions, from the compact answers above (the default engine: compact, top 4,
  hybrid); gold = the question's gold strings (among the passages, in the answer: any one of
  them), short-answer exact match and F1 against them on the "single" questions only (their
  gold is the one sentence or phrase holding the fact, so F1 of a bold phrase stays low);
- the held-out SQuAD 2.0 sample (``answers/squad_heldout.py``: 300 answerable + 60
  unanswerable questions over an index of the 157 held-out paragraphs, cached).

Per-question outcomes go to ``benchmarks/results/answers-{corpus,squad}-latest.jsonl`` and the
two tables to ``answers-tables-latest.md``; ``answers/BEFORE.md`` holds the figures before
issue 19.

    python -m benchmarks --only answers
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import fmean

from benchmarks.answers import squad_heldout
from benchmarks.answers.answer_measures import (
    UNKNOWN_PHRASES,
    Record,
    best_overlap_sentence,
    timed_query,
)
from benchmarks.answers.answer_report import report
from benchmarks.answers.corpus_index import load_or_build
from benchmarks.answers.question_set import KINDS, Question, gold_found, load_questions
from benchmarks.answers.report import cell, format_matrix
from benchmarks.answers.squad import contains_gold
from benchmarks.harness import RESULTS_DIR, Row, corpus_dir

MODES = ("compact", "refine", "simple_summarize", "tree_summarize", "accumulate",
         "compact_accumulate")
TOP_K = 4


@dataclass(slots=True)
class Outcome:
    """One question's answer and its measures."""

    id: str
    kind: str
    question: str
    answer: str
    words: int
    gold_recall: float | None  # None for "none" questions
    context_recall: float | None
    says_unknown: bool
    seconds: float


def says_unknown(answer: str) -> bool:
    """Whether the answer's own first line says the documents do not answer the question (our
    extractive answer by its label line: its bold short answer is a quote, whatever it says)."""
    from ragcore.llms.extractive.answer import LABEL, says_not_found

    if answer.lstrip().startswith(LABEL):
        return says_not_found(answer)
    first_line = answer.strip().split("\n", 1)[0].casefold()
    return any(phrase in first_line for phrase in UNKNOWN_PHRASES)


def ask(engine, q: Question) -> tuple[Outcome, Record]:
    """Run one question through ``engine``: its measures, and its record for issue 19's table."""
    from ragcore.present.answer_score import stated_score

    response, answer, seconds = timed_query(engine, q.question)
    passages = [scored.node.text for scored in response.source_nodes]
    context = "\n\n".join(passages)
    recall = fmean(gold_found(q.gold, answer)) if q.answerable else None
    in_context = fmean(gold_found(q.gold, context)) if q.answerable else None
    outcome = Outcome(q.id, q.kind, q.question, answer, len(answer.split()), recall, in_context,
                      says_unknown(answer), seconds)
    record = Record(q.id, q.question, list(q.gold), answer, passages,
                    contains_gold(context, q.gold), seconds, short_scored=q.kind == "single",
                    baseline=best_overlap_sentence(q.question, passages),
                    score=stated_score(response.trace))
    return outcome, record


def summarize(outcomes: list[Outcome]) -> dict[str, float | None]:
    """Mean measures over ``outcomes`` (None where no question of that sort is among them)."""
    answerable = [o for o in outcomes if o.gold_recall is not None]
    unanswerable = [o for o in outcomes if o.gold_recall is None]

    def mean(values: list[float]) -> float | None:
        return fmean(values) if values else None

    return {
        "gold recall": mean([o.gold_recall for o in answerable]),
        "all gold quoted": mean([float(o.gold_recall == 1.0) for o in answerable]),
        "gold in context": mean([o.context_recall for o in answerable]),
        "words": mean([float(o.words) for o in outcomes]),
        "says unknown (none)": mean([float(o.says_unknown) for o in unanswerable]),
        "says unknown (answerable)": mean([float(o.says_unknown) for o in answerable]),
        "ms/query": mean([o.seconds * 1000 for o in outcomes]),
    }


_UNITS = {"words": "words", "ms/query": "ms"}
_NOTES = {
    "gold recall": "share of gold strings quoted",
    "gold in context": f"share of gold strings in the top-{TOP_K} chunks",
    "says unknown (none)": "wanted: corpus does not answer",
    "says unknown (answerable)": "unwanted",
}


def mode_rows(label: str, summary: dict[str, float | None], count: int,
              *, leave_out: tuple[str, ...] = ()) -> list[Row]:
    return [Row("answers", f"{metric}, {label}", value, _UNITS.get(metric, ""),
                note=_NOTES.get(metric, "") if label == "compact" else f"{count} questions")
            for metric, value in summary.items() if value is not None and metric not in leave_out]


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row | dict]:
    """Gold recall, answer length and abstention per response mode, and by kind for compact."""
    from ragcore import ExtractiveLLM

    corpus = corpus or corpus_dir()
    questions = load_questions()
    bench = load_or_build(questions, corpus)
    rows: list[Row | dict] = list(bench.rows("answers"))
    llm = ExtractiveLLM()
    summaries: dict[str, dict] = {}
    for mode in MODES[:1] if quick else MODES:
        engine = bench.index.as_query_engine(llm=llm, similarity_top_k=TOP_K, response_mode=mode)
        engine.query(questions[0].question).text  # loads the embedding model: not a query's cost
        asked = [ask(engine, q) for q in questions]
        outcomes = [outcome for outcome, _ in asked]
        summaries[mode] = summarize(outcomes)
        if mode != "compact":  # the same retrieval as compact's: only the answers differ
            rows += mode_rows(mode, summaries[mode], len(outcomes), leave_out=("gold in context",))
            continue
        rows += mode_rows(mode, summaries[mode], len(outcomes))
        for kind in KINDS:
            of_kind = [o for o in outcomes if o.kind == kind]
            summaries[f"compact, {kind}"] = summarize(of_kind)
            rows += mode_rows(f"compact, {kind}", summaries[f"compact, {kind}"], len(of_kind),
                              leave_out=("ms/query",))
        _write_answers(outcomes)
        corpus_records = [record for _, record in asked]
    sys.stderr.write(_table(summaries, len(questions)) + "\n")
    return rows + issue19_rows(corpus_records)


def issue19_rows(corpus_records: list[Record]) -> list[Row | dict]:
    """Issue 19's table for the corpus questions and the held-out SQuAD sample: rows, and the
    tables on stderr and in ``benchmarks/results/answers-tables-latest.md``."""
    answerable = sum(r.answerable for r in corpus_records)
    title = (f"corpus questions: {answerable} answerable + {len(corpus_records) - answerable} "
             "'none' (default engine: compact, top 4, hybrid; ExtractiveLLM)")
    rows, corpus_table = report("corpus", title, corpus_records)
    squad_records, how = squad_heldout.run()
    state = "built and cached" if how["built"] else "loaded from the cache"
    rows.append({"metric": "SQuAD held-out index ready", "value": how["seconds"], "unit": "s",
                 "note": f"{state}: {how['nodes']} nodes"})
    squad_rows, squad_table = report("squad", squad_heldout.title(squad_records), squad_records)
    tables = f"{corpus_table}\n\n{squad_table}\n"
    sys.stderr.write("\n" + tables)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "answers-tables-latest.md").write_text(tables, encoding="utf-8")
    return rows + squad_rows


def _table(summaries: dict[str, dict], count: int) -> str:
    metrics = list(next(iter(summaries.values())))
    lines = [[label, *(cell(summary[m]) for m in metrics)] for label, summary in summaries.items()]
    return format_matrix(f"answers of ExtractiveLLM, top {TOP_K}, {count} questions "
                         "(compact also by question kind)", ["mode", *metrics], lines)


def _write_answers(outcomes: list[Outcome]) -> None:
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(asdict(o), ensure_ascii=False) for o in outcomes]
    (RESULTS_DIR / "answers-latest.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table([Row.from_any(r, group="answers") for r in run()]))
