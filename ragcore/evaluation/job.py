"""An evaluation run in a background thread, with progress, cancel, and its report saved in the
workspace when it ends: what the app's Evaluate tab and ``ragcore eval`` start.

``start_evaluation(workspace, "papers", dataset, llm=..., modes=[...], retrievers=[...])``
returns an ``EvaluationJob`` at once. ``job.progress`` is the latest ``EvalProgress`` (rows done
of all), ``job.state`` one of running, done, failed, cancelled; ``job.cancel()`` stops it after
the row under way (the rows done are kept and saved, marked cancelled); ``job.wait()`` blocks.
When it ends the report is saved with ``EvaluationStore`` (``<workspace>/evaluations/<id>.json``)
and ``job.report`` / ``job.evaluation_id`` are set; a failure leaves ``job.error``. The job
lives in the process that started it (unlike the workspace's ingest jobs it keeps no journal):
a page keeps the object, e.g. in ``st.session_state``.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Sequence

from ..errors import RagcoreError
from ..workspace.evaluations import EvaluationStore
from .batch_runner import BatchEvalRunner, default_evaluators
from .questions.dataset import EmbeddingQAFinetuneDataset
from .report import EvaluationReport
from .setups import EvalProgress

logger = logging.getLogger(__name__)


class EvaluationJob:
    """One evaluation running in a thread."""

    def __init__(self, work: Callable[[Callable[[EvalProgress], None], Callable[[], bool]],
                                      EvaluationReport], *, store: EvaluationStore | None = None
                 ) -> None:
        self._work = work
        self._store = store
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._run, name="ragcore-evaluation",
                                        daemon=True)
        self.state = "running"
        self.progress: EvalProgress | None = None
        self.report: EvaluationReport | None = None
        self.evaluation_id: str | None = None
        self.error: str | None = None

    def start(self) -> EvaluationJob:
        self._thread.start()
        return self

    @property
    def active(self) -> bool:
        return self.state == "running"

    @property
    def fraction(self) -> float:
        """The share of rows done, 0..1."""
        if self.progress is None or not self.progress.total:
            return 0.0
        return self.progress.done / self.progress.total

    def cancel(self) -> None:
        """Stop after the row under way; the rows done are kept."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> EvaluationJob:
        self._thread.join(timeout)
        return self

    def _on_progress(self, progress: EvalProgress) -> None:
        self.progress = progress

    def _run(self) -> None:
        try:
            report = self._work(self._on_progress, self._cancel.is_set)
            if self._store is not None:
                data = report.to_dict()
                self.evaluation_id = report.id = self._store.save(data)
                report.created = data["created"]
            self.report = report
            self.state = "cancelled" if report.cancelled else "done"
        except (RagcoreError, OSError) as exc:
            logger.warning("evaluation failed: %s", exc)
            self._failed(exc)
        except Exception as exc:
            # A bug must still end the job (a page or the CLI waits for it), with its traceback
            # in the log and its message on the job; it is not swallowed.
            logger.exception("evaluation failed unexpectedly")
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        self.error = f"{type(exc).__name__}: {exc}"
        self.state = "failed"


def start_evaluation(workspace: Any, index_name: str, dataset: EmbeddingQAFinetuneDataset, *,
                     llm: Any, modes: Sequence[str], retrievers: Sequence[str],
                     judge: Any = None, top_k: int = 4, search_mode: str = "hybrid",
                     workers: int = 1, evaluators: dict | None = None) -> EvaluationJob:
    """Evaluate (retrievers x modes) of a workspace index in the background; save the report.

    ``judge`` is the LLM that grades answers (None: the offline proxies); the index's embedder
    measures semantic similarity and source support.
    """
    index = workspace.load_index(index_name)
    chosen = evaluators if evaluators is not None else default_evaluators(
        judge, embedder=index.embedder)
    runner = BatchEvalRunner(chosen, workers=workers)

    def work(on_progress: Callable[[EvalProgress], None], cancel: Callable[[], bool]
             ) -> EvaluationReport:
        return runner.evaluate_setups(index, dataset, llm=llm, modes=modes,
                                      retrievers=retrievers, top_k=top_k,
                                      search_mode=search_mode, on_progress=on_progress,
                                      cancel=cancel, index_name=index_name)

    return EvaluationJob(work, store=EvaluationStore(workspace.root)).start()


def load_evaluation(workspace: Any, evaluation_id: str) -> EvaluationReport:
    """A saved evaluation of the workspace, as a report."""
    return EvaluationReport.from_dict(EvaluationStore(workspace.root).load(evaluation_id))
