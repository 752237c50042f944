"""An upload's count and time left that hold (issue 66): a walk saw "about 134 passages" rise
five times (157, 183, 202, 227) to 229, and "about 1 s left" for 6 s of a 16.9 s job on a busy
computer. A file's passages are counted once its text is read, exactly; the time left is a
range from the rates seen while the job's own and this computer's measured rate disagree.
"""

from __future__ import annotations

import re

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.estimate import JobWork, file_chunks, splitter_for
from ragcore.workspace.jobs.journal import Job
from ragcore.workspace.jobs.remaining import human_duration

PDF = "nist_pdfs/NIST.SP800-30r1-RiskAssessment.pdf"  # 95 pages: counted 276, makes 426


def seconds_said(words: str) -> tuple[float, float]:
    """'between 7 s and 15 s left' -> (7, 15); 'about 3 s left' -> (3, 3)."""
    said = [float(n) for n in re.findall(r"(\d+) s\b", words)]
    return min(said), max(said)


def test_a_pdfs_passages_are_counted_once_exactly_from_its_first_passage_indexed(
        tmp_path, corpus_dir):
    pdf = corpus_dir / PDF
    events = []
    report = Workspace(tmp_path / "ws", embedder=FakeEmbedder()).ingest(
        "docs", [pdf], progress=events.append)
    made = report.chunks
    work = JobWork([file_chunks(pdf, splitter_for(None, None))], [pdf.name])
    job = Job("ingest", "docs", files=[str(pdf)], state="embedding")
    said = set()
    for event in events:
        changes = work.observe(event)
        if event.stage == "embedding":
            for key, value in changes.items():
                setattr(job, key, value)
            said.add(re.search(r"indexing passage [\d,]+ of (.+)", job.status())[1])
    assert {changes["work_low"], changes["work_high"], changes["work_total"]} == {made}
    assert said == {f"{made:,}"}, said  # one count, said without "about" or "so far"


def test_files_not_read_yet_are_counted_so_far_with_their_range():
    work = JobWork([276, 100], ["a.pdf", "b.txt"])
    low, high = work.bounds()
    assert low == 138 + 91 and high == 552 + 110  # a size says less than a text
    job = Job("ingest", "docs", files=["a.pdf", "b.txt"], state="embedding", work_done=10,
              work_total=376, work_low=low, work_high=high)
    assert job.status().startswith("indexing passage 10 of about 376 so far")


def _busy_job(**changes) -> Job:
    """Half-way through 400 passages: this computer's kept rate is 80 a second (measured
    when idle), the job's own 30 (other work slows it down): 200 left take about 6.7 s."""
    job = Job("ingest", "docs", files=["a.pdf"], state="embedding", rate=80.0, work_total=400,
              work_low=400, work_high=400, work_done=200, work_started_at=1000.0,
              work_base=0, rate_since=1000.0, rate_base=0, work_updated_at=1000.0 + 200 / 30)
    for key, value in changes.items():
        setattr(job, key, value)
    return job


def test_on_a_busy_computer_the_time_left_is_a_range_that_holds_the_truth():
    job = _busy_job()
    truth = 200 / 30
    said = job.time_left(now=job.work_updated_at).describe()
    low, high = seconds_said(said)
    assert said.startswith("between ") and low <= truth <= high + 0.5, said
    # 20 s in, its own rate measured over slices: the kept one no longer an end of the range
    later = _busy_job(work_total=1000, work_low=1000, work_high=1000, work_done=600,
                      work_updated_at=1000.0 + 600 / 30)
    assert later.time_left(now=later.work_updated_at).describe() == "about 13 s left"


def test_the_time_left_counts_down_and_is_never_one_second_while_seconds_remain():
    job = _busy_job()
    for elapsed in (1.0, 3.0, 5.0):  # no passage finished since: the slice under way
        said = job.time_left(now=job.work_updated_at + elapsed).describe()
        low, high = seconds_said(said)
        assert high + 0.5 >= 200 / 30 - elapsed, (elapsed, said)
    agreed = _busy_job(rate=30.0)  # the kept rate and the job's agree: one figure
    assert agreed.time_left(now=agreed.work_updated_at).describe() == (
        f"about {human_duration(200 / 30)} left")


@pytest.mark.parametrize("seconds, words", [(0.4, "almost done"), (75, "about 75 s left")])
def test_a_narrow_range_is_said_as_one_figure(seconds, words):
    total = 200 + round(seconds * 30)
    job = _busy_job(rate=30.0, work_total=total, work_low=total, work_high=total)
    assert job.time_left(now=job.work_updated_at).describe() == words
