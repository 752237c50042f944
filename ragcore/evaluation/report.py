"""The results of an evaluation: a row per (setup, question), and the leaderboard made of them.

A setup is one retriever with one response mode ("hybrid / compact"). Each ``QuestionRow`` keeps
what a drill-down shows: the answer, its sources, its trace, the retrieval metrics and each
answer metric's score, verdict and feedback. ``EvaluationReport.leaderboard()`` gives each
setup's mean of every metric with a bootstrap interval (``bootstrap.py``), best first; it is
exported as CSV (``to_csv``: the rows; ``leaderboard_csv``) and Markdown (``to_markdown``), and
saved as JSON in the workspace (``ragcore.workspace.evaluations``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field, fields
from statistics import fmean
from typing import Any

from ..errors import ConfigError
from .bootstrap import bootstrap_interval

FORMAT = "ragcore-evaluation/1"
MAX_NOTES = 10  # problems listed under a Markdown leaderboard
# The leaderboard sorts by the first of these that was measured (higher is better).
SORT_ORDER = ("correctness", "faithfulness", "relevancy", "semantic_similarity", "ndcg", "mrr",
              "hit_rate")


def setup_label(retriever: str, mode: str) -> str:
    return f"{retriever} / {mode}"


@dataclass(slots=True)
class QuestionRow:
    """One setup's answer to one question, with its metrics."""

    retriever: str
    mode: str
    question_id: str
    question: str
    answer: str = ""
    reference: str | None = None
    sources: list[dict[str, Any]] = field(default_factory=list)
    metrics: dict[str, float | None] = field(default_factory=dict)
    passing: dict[str, bool | None] = field(default_factory=dict)
    feedback: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    llm_calls: int = 0
    error: str | None = None
    trace: dict[str, Any] | None = None

    @property
    def setup(self) -> str:
        return setup_label(self.retriever, self.mode)


@dataclass(slots=True)
class LeaderboardRow:
    """One setup's means over the questions, with their confidence intervals."""

    setup: str
    retriever: str
    mode: str
    questions: int
    means: dict[str, float | None]
    intervals: dict[str, tuple[float, float] | None]
    errors: int
    seconds: float


@dataclass(slots=True)
class EvaluationReport:
    """Every row of an evaluation, and what it was run with."""

    index: str
    modes: list[str]
    retrievers: list[str]
    metrics: list[str]
    rows: list[QuestionRow] = field(default_factory=list)
    methods: dict[str, str] = field(default_factory=dict)  # metric -> judge or proxy used
    question_set: str = ""  # where the questions came from
    question_count: int = 0
    settings: dict[str, Any] = field(default_factory=dict)  # llm, embedder, top_k, search
    problems: list[str] = field(default_factory=list)
    cancelled: bool = False
    id: str = ""
    created: str = ""

    def leaderboard(self, *, sort_by: str | None = None, resamples: int = 1000, seed: int = 0,
                    confidence: float = 0.95) -> list[LeaderboardRow]:
        """Each setup's means and intervals, best first by ``sort_by`` (default:
        ``SORT_ORDER``'s first measured metric)."""
        board = []
        for retriever in self.retrievers:
            for mode in self.modes:
                rows = [r for r in self.rows if (r.retriever, r.mode) == (retriever, mode)]
                if rows:
                    board.append(self._summary(retriever, mode, rows, resamples, seed,
                                               confidence))
        key = sort_by or self.primary_metric()
        board.sort(key=lambda b: -(b.means.get(key) if b.means.get(key) is not None
                                   else float("-inf")))
        return board

    def primary_metric(self) -> str:
        """The metric the leaderboard is sorted by."""
        measured = {m for r in self.rows for m, v in r.metrics.items() if v is not None}
        return next((m for m in SORT_ORDER if m in measured), self.metrics[0] if self.metrics
                    else "")

    def rows_for(self, question_id: str) -> list[QuestionRow]:
        """Every setup's row for one question (the drill-down)."""
        return [r for r in self.rows if r.question_id == question_id]

    def _summary(self, retriever: str, mode: str, rows: list[QuestionRow], resamples: int,
                 seed: int, confidence: float) -> LeaderboardRow:
        means, intervals = {}, {}
        for metric in self.metrics:
            values = [r.metrics.get(metric) for r in rows]
            values = [v for v in values if v is not None]
            means[metric] = fmean(values) if values else None
            intervals[metric] = bootstrap_interval(values, resamples=resamples, seed=seed,
                                                   confidence=confidence)
        return LeaderboardRow(setup_label(retriever, mode), retriever, mode, len(rows), means,
                              intervals, sum(1 for r in rows if r.error),
                              fmean(r.seconds for r in rows))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["format"] = FORMAT
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvaluationReport:
        if data.get("format") != FORMAT:
            raise ConfigError(f"not a saved evaluation (format {data.get('format')!r}, expected "
                             f"{FORMAT!r}): choose another file")
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        row_names = {f.name for f in fields(QuestionRow)}
        values["rows"] = [QuestionRow(**{k: v for k, v in row.items() if k in row_names})
                          for row in data.get("rows", [])]
        return cls(**values)

    def to_csv(self) -> str:
        """One line per (setup, question): the answer, each metric, time and error."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["retriever", "mode", "question_id", "question", "answer", *self.metrics,
                         "seconds", "llm_calls", "error"])
        for r in self.rows:
            writer.writerow([r.retriever, r.mode, r.question_id, r.question, r.answer,
                             *(_number(r.metrics.get(m)) for m in self.metrics),
                             f"{r.seconds:.3f}", r.llm_calls, r.error or ""])
        return out.getvalue()

    def leaderboard_csv(self, **options: Any) -> str:
        """The leaderboard as CSV: per setup, each metric's mean and interval bounds."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["setup", "questions", *(f"{m}{s}" for m in self.metrics
                                                 for s in ("", " low", " high")), "errors",
                         "seconds"])
        for b in self.leaderboard(**options):
            cells = []
            for m in self.metrics:
                low_high = b.intervals[m] or (None, None)
                cells += [_number(b.means[m]), _number(low_high[0]), _number(low_high[1])]
            writer.writerow([b.setup, b.questions, *cells, b.errors, f"{b.seconds:.3f}"])
        return out.getvalue()

    def to_markdown(self, **options: Any) -> str:
        """The leaderboard as a Markdown table (mean [95% interval]), with how it was judged."""
        head = ["setup", *self.metrics, "errors", "s/answer"]
        lines = [f"Evaluation of index {self.index!r}: {self.question_count} questions "
                 f"({self.question_set or 'question set'})" +
                 (" — cancelled, partial results" if self.cancelled else ""), "",
                 "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for b in self.leaderboard(**options):
            cells = [_with_interval(b.means[m], b.intervals[m]) for m in self.metrics]
            lines.append(f"| {b.setup} | " + " | ".join(cells) +
                         f" | {b.errors} | {b.seconds:.2f} |")
        if self.methods:
            lines += ["", "How each metric was measured:"]
            lines += [f"- {m}: {how}" for m, how in self.methods.items()]
        if self.problems:
            lines += ["", "Notes:"] + [f"- {p}" for p in self.problems[:MAX_NOTES]]
            if len(self.problems) > MAX_NOTES:
                lines.append(f"- and {len(self.problems) - MAX_NOTES} more")
        return "\n".join(lines) + "\n"


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _with_interval(mean: float | None, interval: tuple[float, float] | None) -> str:
    if mean is None:
        return "n/a"
    if interval is None:
        return f"{mean:.3f}"
    return f"{mean:.3f} [{interval[0]:.2f}, {interval[1]:.2f}]"
