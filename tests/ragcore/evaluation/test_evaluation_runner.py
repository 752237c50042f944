"""Running setups (retrievers x modes x questions): one retrieval shared by the modes, progress,
cancel, skipped retrievers, the leaderboard with bootstrap intervals, exports, the store, the
background job."""

from __future__ import annotations

import pytest

from ragcore.errors import ConfigError
from ragcore.evaluation import (
    BatchEvalRunner,
    EmbeddingQAFinetuneDataset,
    EvaluationReport,
    bootstrap_interval,
    default_evaluators,
    load_evaluation,
    run_setups,
    start_evaluation,
)
from ragcore.evaluation.report import QuestionRow
from ragcore.llms.fake import FakeLLM
from ragcore.workspace.evaluations import EvaluationStore

HERON = ("Herons nest high in alder trees along the river bank every spring. The heron waits in "
         "shallow water for fish.")
GRANITE = ("Granite forms when magma cools slowly deep below the surface. Quarries cut granite "
           "for harbour walls.")


@pytest.fixture(scope="module")
def index():
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.index import VectorStoreIndex
    from ragcore.types import Document

    docs = [Document(text=HERON, metadata={"file_name": "heron.txt"}),
            Document(text=GRANITE, metadata={"file_name": "granite.txt"})]
    return VectorStoreIndex.from_documents(docs, embedder=FakeEmbedder())


class CountingIndex:
    """The index, counting the retrievals of the retrievers it hands out."""

    def __init__(self, index) -> None:
        self.index, self.retrievals = index, 0

    def __getattr__(self, name):
        return getattr(self.index, name)

    def as_retriever(self, **options):
        inner, outer = self.index.as_retriever(**options), self

        class Counted:
            def retrieve(self, query, *, trace=None):
                outer.retrievals += 1
                return inner.retrieve(query, trace=trace)

        return Counted()


def questions() -> EmbeddingQAFinetuneDataset:
    return EmbeddingQAFinetuneDataset(
        {"q1": "Where do herons nest?", "q2": "How does granite form?",
         "q3": "Who cuts granite?"},
        expected_sources={"q1": ["heron.txt"], "q2": ["granite.txt"], "q3": ["granite.txt"]},
        reference_answers={"q1": "in alder trees", "q2": "magma cools slowly"},
        origin="test set")


def test_each_retriever_retrieves_once_per_question_for_all_modes(index):
    counting = CountingIndex(index)
    seen = []
    report = run_setups(counting, questions(), llm=FakeLLM(default="in alder trees"),
                        modes=["compact", "tree_summarize", "compact"],
                        retrievers=["keyword", "similarity"],
                        evaluators=default_evaluators(None), on_progress=seen.append,
                        index_name="birds")
    assert counting.retrievals == 3 * 2  # questions x retrievers, not x modes
    assert len(report.rows) == 3 * 2 * 2 and report.modes == ["compact", "tree_summarize"]
    assert [p.done for p in seen] == list(range(1, 13)) and seen[-1].total == 12
    row = report.rows_for("q1")[0]
    assert row.metrics["hit_rate"] == 1.0 and row.sources[0]["file"] == "heron.txt"
    assert row.metrics["correctness"] == 5.0 and row.feedback["correctness"]
    assert [s["name"] for s in row.trace["stages"]][0] == "keyword search"
    assert "correctness" not in report.rows_for("q3")[0].metrics  # no expected answer
    assert report.index == "birds" and not report.cancelled


def test_cancel_keeps_the_rows_done_and_marks_the_report(index):
    done = []
    report = run_setups(index, questions(), llm=FakeLLM(), modes=["compact", "refine"],
                        retrievers=["keyword"], on_progress=done.append,
                        cancel=lambda: len(done) >= 3)
    assert report.cancelled and len(report.rows) == 3
    late_rows: list = []
    late = run_setups(index, questions().head(1), llm=FakeLLM(), retrievers=["keyword"],
                      cancel=lambda: len(late_rows) >= 1, on_progress=late_rows.append)
    assert not late.cancelled  # cancelled after the last row: the report is complete


def test_a_retriever_the_llm_cannot_run_is_skipped_with_the_reason(index):
    from ragcore.llms.extractive.backend import ExtractiveLLM

    seen = []
    report = run_setups(index, questions(), llm=ExtractiveLLM(), modes=["compact"],
                        retrievers=["hyde", "keyword"], on_progress=seen.append)
    assert {r.retriever for r in report.rows} == {"keyword"}
    assert (seen[-1].done, seen[-1].total) == (3, 3)  # the skipped one is not waited for
    assert "hyde skipped" in report.problems[0] and "language model" in report.problems[0]
    with pytest.raises(ConfigError, match="unknown retriever 'bm99'"):
        run_setups(index, questions(), llm=ExtractiveLLM(), retrievers=["bm99"])
    with pytest.raises(ConfigError, match="unknown response mode"):
        run_setups(index, questions(), llm=ExtractiveLLM(), modes=["fastest"])


def test_a_failing_mode_leaves_an_error_row_and_the_rest_runs(index):
    from ragcore.errors import LLMError

    class Failing(FakeLLM):
        def stream(self, messages):
            if self.calls and len(self.calls) % 2:
                self.calls.append(list(messages))
                raise LLMError("server went away")
            yield from super().stream(messages)

    report = run_setups(index, questions().head(2), llm=Failing(default="fine"),
                        modes=["compact", "simple_summarize"], retrievers=["keyword"])
    errors = [r for r in report.rows if r.error]
    assert errors and all("server went away" in r.error for r in errors)
    assert len(report.rows) == 4 and report.leaderboard()[0].questions == 2


def row(retriever: str, mode: str, qid: str, score: float) -> QuestionRow:
    return QuestionRow(retriever, mode, qid, f"{qid}?", metrics={"correctness": score})


def test_the_leaderboard_is_sorted_with_seeded_intervals_and_exports():
    report = EvaluationReport("birds", ["compact", "refine"], ["hybrid"], ["correctness"],
                              rows=[row("hybrid", "compact", "q1", 5), row("hybrid", "compact",
                                    "q2", 3), row("hybrid", "refine", "q1", 1),
                                    row("hybrid", "refine", "q2", 2)],
                              methods={"correctness": "offline proxy: gold match"},
                              question_count=2)
    board = report.leaderboard()
    assert [b.setup for b in board] == ["hybrid / compact", "hybrid / refine"]
    assert board[0].means["correctness"] == 4.0
    low, high = board[0].intervals["correctness"]
    assert 3.0 <= low <= 4.0 <= high <= 5.0
    assert report.leaderboard()[0].intervals == board[0].intervals  # seeded
    markdown = report.to_markdown()
    assert "| hybrid / compact | 4.000 [" in markdown and "gold match" in markdown
    assert report.to_csv().splitlines()[1].startswith("hybrid,compact,q1,q1?,,5.0000")
    assert report.leaderboard_csv().splitlines()[0].startswith(
        "setup,questions,correctness,correctness low,correctness high")
    assert EvaluationReport.from_dict(report.to_dict()).leaderboard()[0].means == board[0].means


def test_bootstrap_interval_of_known_data():
    assert bootstrap_interval([2.0, 2.0, 2.0]) == (2.0, 2.0)
    low, high = bootstrap_interval([0.0, 1.0] * 50, seed=1)
    assert 0.39 < low < 0.5 < high < 0.61  # mean 0.5, standard error 0.05
    assert bootstrap_interval([]) is None
    with pytest.raises(ConfigError, match="confidence"):
        bootstrap_interval([1.0], confidence=95)


def test_the_store_saves_lists_and_loads_evaluations_and_question_sets(tmp_path):
    store = EvaluationStore(tmp_path)
    report = EvaluationReport("birds", ["compact"], ["hybrid"], ["correctness"],
                              rows=[row("hybrid", "compact", "q1", 4)], question_count=1)
    first = store.save(report.to_dict())
    assert (tmp_path / "evaluations" / f"{first}.json").exists()
    assert EvaluationReport.from_dict(store.load(first)).rows == report.rows
    second = store.save(report.to_dict())
    assert [s["id"] for s in store.list()] == [second, first]  # newest first
    store.delete(second)
    assert store.list(index="birds")[0]["id"] == first and store.list(index="other") == []
    # the list reads the small summary, not the report (megabytes with traces)
    (tmp_path / "evaluations" / f"{first}.json").write_text("not JSON any more")
    assert store.list()[0]["question_count"] == 1
    (tmp_path / "evaluations" / f"{first}.summary").unlink()
    assert store.list() == []  # no summary, and the report cannot be read: left out
    store.delete(first)
    assert list((tmp_path / "evaluations").iterdir()) == []
    store.save_question_set("birds-20", questions().to_dict())
    assert store.question_sets() == ["birds-20"]
    assert EmbeddingQAFinetuneDataset.from_dict(store.load_question_set("birds-20")) == \
        questions()
    with pytest.raises(Exception, match="not allowed"):
        store.load("../../etc/passwd")


def test_a_background_job_reports_progress_and_saves_its_report(index, tmp_path):
    class Workspace:
        root = tmp_path

        def load_index(self, name):
            assert name == "birds"
            return index

    job = start_evaluation(Workspace(), "birds", questions(), llm=FakeLLM(),
                           modes=["compact"], retrievers=["keyword", "hybrid"]).wait(30)
    assert job.state == "done" and job.fraction == 1.0 and job.error is None
    saved = load_evaluation(Workspace(), job.evaluation_id)
    assert len(saved.rows) == 6 and saved.index == "birds"
    assert "semantic_similarity" in saved.metrics  # the index's embedder measures it


def test_batch_runner_evaluate_setups_uses_its_evaluators(index):
    runner = BatchEvalRunner(default_evaluators(None), workers=2)
    report = runner.evaluate_setups(index, questions(), llm=FakeLLM(), modes=["compact"],
                                    retrievers=["keyword"])
    assert report.metrics == ["hit_rate", "mrr", "ndcg", "faithfulness", "relevancy",
                              "correctness"]
    assert sorted(r.question_id for r in report.rows) == ["q1", "q2", "q3"]


def test_a_job_whose_work_breaks_ends_failed_with_the_error():
    from ragcore.evaluation import EvaluationJob

    def work(on_progress, cancel):
        raise KeyError("a bug")

    job = EvaluationJob(work).start().wait(10)
    assert job.state == "failed" and not job.active and "KeyError" in job.error


def test_a_file_that_is_no_saved_evaluation_is_refused_with_the_fix():
    with pytest.raises(ConfigError, match="not a saved evaluation.*choose another file"):
        EvaluationReport.from_dict({"format": "ragcore-chat"})
