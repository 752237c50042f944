"""Summaries made at ingest when a language model is configured (issue 13: DocumentSummaryIndex).

The model is a real loopback HTTP server speaking the Ollama and OpenAI wire formats
(tests/support/loopback.py); the jobs run in the real ``JobRunner``. Offline, nothing is summarised at
ingest (extractive summaries stay on demand).
"""

from __future__ import annotations

import threading

import pytest
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.summaries.index import DocumentSummaryIndex
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.journal import Job
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.settings import Settings
from ragcore.workspace.summaries import cached_document_summaries, summarize_file
from ragcore.workspace.ingest.summary_stage import summary_cache, summary_model

WAIT = 60  # seconds: only reached when something is wrong
OWLS = "Owls hunt at night. Their eyes see well in the dark. They eat mice and voles."
BREAD = "Bread needs flour, water, salt and yeast. Knead the dough, let it rise, then bake it."


def _settings(server, backend: str = "ollama", model: str = "llama3.1") -> Settings:
    url = server.ollama_url if backend == "ollama" else server.openai_url
    values = {"url": url, "model": model}
    if backend == "openai":
        values["api_key"] = "sk-test"
    return Settings(llm_backend=backend, llms={backend: values})


def _workspace(tmp_path, settings: Settings | None) -> Workspace:
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    if settings is not None:
        ws.save_settings(settings)
    return ws


@pytest.fixture
def folder(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "owls.txt").write_text(OWLS, encoding="utf-8")
    (docs / "bread.txt").write_text(BREAD, encoding="utf-8")
    return docs


def _chats(server) -> list:
    return [r for r in server.requests if r.path in ("/api/chat", "/v1/chat/completions")]


def _states(job: Job) -> list[str]:
    """Every status the job shows, sampled by a watcher thread until it ends."""
    seen: list[str] = []

    def watch() -> None:
        while True:
            status = job.status()
            if not seen or seen[-1] != status:
                seen.append(status)
            if not job.active:
                return
            threading.Event().wait(0.005)

    threading.Thread(target=watch, daemon=True).start()
    return seen


@pytest.mark.parametrize("backend, model", [("ollama", "llama3.1"), ("openai", "gpt-4o-mini")])
def test_an_ingest_job_summarises_each_file_with_the_configured_model(
        tmp_path, folder, loopback, backend, model):
    ws = _workspace(tmp_path, _settings(loopback, backend, model))
    loopback.queue(Reply(text="Bread is made of four things."),
                   Reply(text="Owls are night hunters."))
    runner = JobRunner(ws.root)
    job = runner.ingest(ws, "nature", [folder])
    runner.wait(job.id, WAIT)
    assert job.state == "done", job.summary
    assert job.summary.endswith(f"; 2 files summarised by {backend}:{model}")
    assert (job.summaries_done, job.summaries_total) == (2, 2)
    assert len(_chats(loopback)) == 2
    # The summaries are on disk: asking for one (the Indexes page, the chat's route) calls no one.
    index, uid = ws.load_index("nature"), ws.record("nature").uid
    cache, llm = summary_cache(ws), summary_model(ws.settings)
    summaries = {s.title: s for s in cached_document_summaries(cache, uid, index, llm)}
    assert summaries["owls.txt"].text == "Owls are night hunters."
    assert summaries["owls.txt"].method == f"{backend}:{model}"
    key = summaries["owls.txt"].key
    assert summarize_file(cache, uid, index, key, llm=llm).text == "Owls are night hunters."
    assert len(_chats(loopback)) == 2
    # Retrieval by summary, then by chunks, from the summaries made at ingest.
    by_summary = DocumentSummaryIndex(index, summaries.values())
    question = "owls.txt\nOwls are night hunters."  # the fake embedder matches equal texts
    (best, _), = by_summary.retrieve_summaries(question, top_docs=1)
    assert best.title == "owls.txt"
    assert {n.node.metadata["file_name"] for n in by_summary.retrieve(question)} == {"owls.txt"}


def test_files_summarised_before_with_the_same_content_are_skipped(tmp_path, folder, loopback):
    ws = _workspace(tmp_path, _settings(loopback))
    runner = JobRunner(ws.root)
    runner.wait(runner.ingest(ws, "nature", [folder]).id, WAIT)
    assert len(_chats(loopback)) == 2
    again = runner.ingest(ws, "nature", [folder])
    runner.wait(again.id, WAIT)
    assert again.state == "done" and "summarised" not in again.summary
    assert len(_chats(loopback)) == 2
    (folder / "owls.txt").write_text(OWLS + " Barn owls nest in old barns.", encoding="utf-8")
    changed = runner.ingest(ws, "nature", [folder])
    runner.wait(changed.id, WAIT)
    assert changed.summary.endswith("; 1 file summarised by ollama:llama3.1")
    assert len(_chats(loopback)) == 3
    assert "Barn owls" in _chats(loopback)[-1].json["messages"][-1]["content"]


def test_a_failing_model_is_reported_and_the_ingest_stays_done(tmp_path, folder, loopback):
    ws = _workspace(tmp_path, _settings(loopback, model="nosuchmodel"))  # the server's real 404
    runner = JobRunner(ws.root)
    job = runner.ingest(ws, "nature", [folder])
    runner.wait(job.id, WAIT)
    assert job.state == "done" and not job.error
    assert "2 indexed" in job.summary
    assert "summaries not made: " in job.summary and "nosuchmodel" in job.summary
    assert job.summary.endswith("(they are made when asked for)")
    assert sorted(row["file"] for row in ws.documents("nature")) == ["bread.txt", "owls.txt"]


def test_summarising_shows_its_progress_and_can_be_cancelled(tmp_path, folder, loopback):
    ws = _workspace(tmp_path, _settings(loopback))
    loopback.queue(Reply(text="A slow first summary.", delay=1.0))
    runner = JobRunner(ws.root)
    job = runner.ingest(ws, "nature", [folder])
    seen = _states(job)
    deadline = threading.Event()
    for _ in range(WAIT * 100):
        if job.state == "summarising" or not job.active:
            break
        deadline.wait(0.01)
    assert job.state == "summarising", job.status()
    runner.cancel(job.id)
    runner.wait(job.id, WAIT)
    assert job.state == "cancelled"
    assert job.summary.endswith("; summarising cancelled after 1 of 2 files")
    # the observer may first see it already marked "(stopping after ...)": the cancel raced it
    assert any(state.startswith("summarising 0/2") for state in seen), seen
    assert len(_chats(loopback)) == 1  # the second file was not sent
    assert sorted(row["file"] for row in ws.documents("nature")) == ["bread.txt", "owls.txt"]


def test_offline_nothing_is_summarised_at_ingest(tmp_path, folder):
    ws = _workspace(tmp_path, None)  # 'auto': no model named
    runner = JobRunner(ws.root)
    job = runner.ingest(ws, "nature", [folder])
    seen = _states(job)
    runner.wait(job.id, WAIT)
    assert job.state == "done" and "summar" not in job.summary
    assert not any(status.startswith("summarising") for status in seen)
    assert not (ws.root / "summaries").exists()


def test_the_job_status_counts_the_files_summarised():
    job = Job("ingest", "nature", state="summarising", summaries_done=1, summaries_total=3)
    assert job.status() == "summarising 1/3" and job.active


def test_summaries_written_at_once_from_many_threads_are_all_kept(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from ragcore.summaries.index import DocumentSummary
    from ragcore.workspace.summaries import SummaryCache

    cache = SummaryCache(tmp_path / "summaries")
    made = [DocumentSummary(f"file{n}", f"file{n}.txt", f"text {n}", "m", ()) for n in range(40)]
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda s: cache.put("uid", "fp", s), made))
    assert all(cache.get("uid", s.key, "fp") == s for s in made)
