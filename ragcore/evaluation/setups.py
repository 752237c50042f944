"""Run every setup (retriever x response mode) over every question, retrieving once per
retriever: the engine of ``BatchEvalRunner.evaluate_setups`` and of ``ragcore eval``.

A retriever is named as the app names it: a search mode ("hybrid", "similarity", "keyword",
"mmr": the standard retriever searching so) or an advanced choice of
``ragcore.engines.by_name`` ("auto_merging", "sentence_window", "hyde" ...; those search with
``search_mode``). Per (retriever, question) the passages are retrieved once and every mode
synthesizes from the same passages, so modes differ only in how they answer; router and
sub-questions answer themselves, once per mode. A retriever that cannot run with this LLM is
skipped with the reason in ``report.problems``; a mode that fails on one question leaves that
row's ``error`` and the rest runs. ``on_progress`` is called after each row; ``cancel`` is
asked before each, and a cancelled run returns the rows done, marked ``cancelled``.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..errors import ConfigError, RagcoreError
from ..engines.by_name import CHOICES, build_engine, build_retriever, unavailable_reason
from ..synthesis import ResponseMode, Synthesizer
from ..trace import Trace
from .questions.dataset import EmbeddingQAFinetuneDataset
from .report import EvaluationReport, QuestionRow
from .result import BaseEvaluator
from .retriever_evaluator import RetrieverEvaluator

SEARCH_MODES = ("hybrid", "similarity", "keyword", "mmr")
RETRIEVAL_METRICS = ("hit_rate", "mrr", "ndcg")
SOURCE_CHARS = 400  # characters of each source kept in a row for the drill-down


@dataclass(frozen=True, slots=True)
class EvalProgress:
    """How far a run is: rows done of all, and the row just done."""

    done: int
    total: int
    setup: str
    question: str


@dataclass(frozen=True, slots=True)
class RetrieverSpec:
    """A retriever as named, and how it is built."""

    label: str
    choice: str  # a key of ragcore.engines.by_name.CHOICES
    search_mode: str


def parse_retriever(name: str, search_mode: str = "hybrid") -> RetrieverSpec:
    """A search mode or an advanced retriever's name; ConfigError lists the known names."""
    if name in SEARCH_MODES:
        return RetrieverSpec(name, "standard", name)
    if name in CHOICES:
        return RetrieverSpec(name, name, search_mode)
    raise ConfigError(f"unknown retriever {name!r}: use a search mode ({', '.join(SEARCH_MODES)})"
                      f" or an advanced retriever ({', '.join(CHOICES)})")


@dataclass
class _Run:
    """What every task of one evaluation shares."""

    index: Any
    dataset: EmbeddingQAFinetuneDataset
    llm: Any
    modes: list[ResponseMode]
    evaluators: dict[str, BaseEvaluator]
    ranking: RetrieverEvaluator
    report: EvaluationReport
    top_k: int
    total: int
    on_progress: Callable[[EvalProgress], None] | None
    cancel: Callable[[], bool] | None
    keep_traces: bool
    lock: threading.Lock = field(default_factory=threading.Lock)
    done: int = 0

    def cancelled(self) -> bool:
        return bool(self.cancel and self.cancel())

    def add(self, row: QuestionRow) -> None:
        with self.lock:
            self.report.rows.append(row)
            self.done += 1
            done = self.done
        if self.on_progress:
            self.on_progress(EvalProgress(done, self.total, row.setup, row.question))


def run_setups(
    index: Any, dataset: EmbeddingQAFinetuneDataset, *, llm: Any,
    modes: Sequence[str] = ("compact",), retrievers: Sequence[str] = ("hybrid",),
    evaluators: dict[str, BaseEvaluator] | None = None, top_k: int = 4,
    search_mode: str = "hybrid", workers: int = 1,
    on_progress: Callable[[EvalProgress], None] | None = None,
    cancel: Callable[[], bool] | None = None, keep_traces: bool = True, index_name: str = "",
) -> EvaluationReport:
    """Every (retriever, mode) over every question of ``dataset``, as an EvaluationReport."""
    if top_k < 1 or workers < 1:
        raise ConfigError(f"top_k ({top_k}) and workers ({workers}) must be at least 1")
    parsed_modes = [ResponseMode.parse(m) for m in dict.fromkeys(modes)]
    specs = [parse_retriever(r, search_mode) for r in dict.fromkeys(retrievers)]
    if not parsed_modes or not specs or not len(dataset):
        raise ConfigError("an evaluation needs at least one mode, one retriever and a question")
    evaluators = dict(evaluators or {})
    report = EvaluationReport(
        index=index_name, modes=[m.value for m in parsed_modes],
        retrievers=[s.label for s in specs], metrics=[*RETRIEVAL_METRICS, *evaluators],
        question_set=dataset.origin, question_count=len(dataset),
        methods=_methods(evaluators), problems=list(dataset.problems),
        settings={"llm": getattr(llm, "model", type(llm).__name__), "top_k": top_k,
                  "search_mode": search_mode,
                  "embedder": getattr(index, "embed_model_name", "")})
    runnable = []
    for spec in specs:
        reason = unavailable_reason(spec.choice, llm=llm)
        if reason:
            report.problems.append(f"retriever {spec.label} skipped: it {reason}")
        else:
            runnable.append(spec)
    run = _Run(index, dataset, llm, parsed_modes, evaluators,
               RetrieverEvaluator.from_metric_names(RETRIEVAL_METRICS), report, top_k,
               len(dataset) * len(parsed_modes) * len(runnable), on_progress, cancel, keep_traces)
    for spec in runnable:
        _run_retriever(run, spec, workers)
        if run.cancelled():
            break
    report.cancelled = run.cancelled() and run.done < run.total
    return report


def _methods(evaluators: dict[str, BaseEvaluator]) -> dict[str, str]:
    methods = {"hit_rate": "retrieval: a relevant passage in the top k",
               "mrr": "retrieval: 1 / rank of the first relevant passage",
               "ndcg": "retrieval: nDCG of the top k (binary relevance)"}
    for name, evaluator in evaluators.items():
        methods[name] = getattr(evaluator, "method", "") or type(evaluator).__name__
    return methods


def _run_retriever(run: _Run, spec: RetrieverSpec, workers: int) -> None:
    answers_itself = CHOICES[spec.choice].answers
    retriever = None if answers_itself else build_retriever(
        spec.choice, run.index, llm=run.llm, top_k=run.top_k, mode=spec.search_mode)
    ids = list(run.dataset.queries)

    def task(qid: str) -> None:
        if run.cancelled():
            return
        if retriever is None:
            _answer_with_engines(run, spec, qid)
        else:
            _answer_from_shared_passages(run, spec, retriever, qid)

    if workers == 1:
        for qid in ids:
            task(qid)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragcore-eval") as pool:
        for future in [pool.submit(task, qid) for qid in ids]:
            future.result()


def _answer_from_shared_passages(run: _Run, spec: RetrieverSpec, retriever: Any,
                                 qid: str) -> None:
    question = run.dataset.queries[qid]
    shared, started = Trace(), time.perf_counter()
    try:
        nodes = retriever.retrieve(question, trace=shared)
    except RagcoreError as exc:
        for mode in run.modes:
            run.add(_row(run, spec, mode, qid, error=f"retrieval failed: {exc}"))
        return
    retrieval_seconds = time.perf_counter() - started
    for mode in run.modes:
        if run.cancelled():
            return
        trace = Trace(stages=list(shared.stages), notes={"question": question})
        started = time.perf_counter()
        try:
            answer = Synthesizer(run.llm, response_mode=mode).synthesize(
                question, nodes, trace=trace).text
            error = None
        except RagcoreError as exc:
            answer, error = "", f"{type(exc).__name__}: {exc}"
        seconds = retrieval_seconds + time.perf_counter() - started
        run.add(_row(run, spec, mode, qid, answer=answer, nodes=nodes, trace=trace,
                     seconds=seconds, error=error))


def _answer_with_engines(run: _Run, spec: RetrieverSpec, qid: str) -> None:
    question = run.dataset.queries[qid]
    for mode in run.modes:
        if run.cancelled():
            return
        trace, started = Trace(), time.perf_counter()
        try:
            engine = build_engine(spec.choice, run.index, llm=run.llm, top_k=run.top_k,
                                  mode=spec.search_mode, response_mode=mode)
            response = engine.query(question, trace=trace)
            answer, nodes, error = response.text, list(response.source_nodes), None
        except RagcoreError as exc:
            answer, nodes, error = "", [], f"{type(exc).__name__}: {exc}"
        run.add(_row(run, spec, mode, qid, answer=answer, nodes=nodes, trace=trace,
                     seconds=time.perf_counter() - started, error=error))


def _row(run: _Run, spec: RetrieverSpec, mode: ResponseMode, qid: str, *, answer: str = "",
         nodes: Sequence[Any] = (), trace: Trace | None = None, seconds: float = 0.0,
         error: str | None = None) -> QuestionRow:
    question = run.dataset.queries[qid]
    reference = run.dataset.reference_answers.get(qid)
    row = QuestionRow(spec.label, mode.value, qid, question, answer, reference,
                      sources=[_source(n) for n in nodes], seconds=seconds, error=error,
                      llm_calls=len(trace.llm_calls) if trace else 0,
                      trace=trace.to_dict() if trace and run.keep_traces else None)
    expected = run.dataset.expected_ids(qid)
    if expected:
        ranked = run.ranking.evaluate_ranking(question, nodes, expected)
        row.metrics.update(ranked.metric_vals_dict)
    if error is None:
        _judge_answer(run, row, [getattr(n, "node", n).text for n in nodes])
    return row


def _judge_answer(run: _Run, row: QuestionRow, contexts: list[str]) -> None:
    for name, evaluator in run.evaluators.items():
        if evaluator.needs_reference and not row.reference:
            continue
        result = evaluator.evaluate(row.question, row.answer, contexts, reference=row.reference)
        row.metrics[name] = None if result.invalid_result else result.score
        row.passing[name] = result.passing
        row.feedback[name] = result.invalid_reason or result.feedback or ""


def _source(scored: Any) -> dict[str, Any]:
    node = getattr(scored, "node", scored)
    metadata = getattr(node, "metadata", {}) or {}
    return {"node_id": node.node_id, "file": metadata.get("file_name"),
            "page": metadata.get("page_label", metadata.get("page")),
            "score": getattr(scored, "score", None), "text": node.text[:SOURCE_CHARS]}
