"""A scanned PDF's time left counts its pages to OCR (issue 33 drill: a 5,000-page scan said
"about 1 s left" while OCR read its first 300 pages for over 300 s).

The job counts each PDF's pages without text before it starts; while OCR reads them, the time
left is the pages left times the seconds a page takes (a prior, then the job's own measure),
the job says "reading scanned pages (OCR) n of N", and the time OCR took is not counted as
embedding time. OCR is a fake here (``ocr_images`` monkeypatched: it sleeps a known time a
page), so Tesseract need not be installed.
"""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import pytest

from ragcore.cli import main
from ragcore.cli.progress import ProgressBar
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.readers.pdf import reader as pdf
from ragcore.workspace import Workspace
from ragcore.workspace.jobs import estimate, runner as job_runner
from ragcore.workspace.jobs.estimate import JobWork, scan_chunks, splitter_for
from ragcore.workspace.jobs.journal import Job
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.jobs.ocr_work import OCR_SECONDS_PER_PAGE
from ragcore.workspace.jobs.rates import RateBook
from ragcore.workspace.ingest.report import IngestProgress

PAGES = 30
PAGE_SECONDS = 0.05  # the fake OCR's time per page


def blank_pdf(path: Path, pages: int) -> Path:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument.new()
    for _ in range(pages):
        document.new_page(72, 72)  # an inch square: renders fast at 300 dpi
    document.save(path)
    return path


@pytest.fixture
def slow_ocr(monkeypatch):
    """OCR that takes PAGE_SECONDS a page; each call notes what the job said before it."""
    seen: list[tuple[int, str, float | None]] = []
    job: list[Job] = []
    read = [0]

    def ocr_images(images):
        if job:
            seen.append((read[0], job[0].status(), job[0].remaining_seconds()))
        time.sleep(PAGE_SECONDS * len(images))
        read[0] += len(images)
        return [f"Scanned page {read[0] - len(images) + i} about budgets." for i in
                range(len(images))]

    monkeypatch.setattr(pdf, "ocr_available", lambda: True)
    monkeypatch.setattr(pdf, "ocr_images", ocr_images)
    return seen, job


def test_pages_to_ocr_counts_the_pages_without_text(tmp_path, monkeypatch, corpus_dir):
    scan = blank_pdf(tmp_path / "scan.pdf", 30)
    monkeypatch.setattr(pdf, "ocr_available", lambda: True)
    assert pdf.pages_to_ocr(scan) == 30
    assert pdf.pages_to_ocr(corpus_dir / "nist_pdfs" / "NIST.CSWP.04162018.pdf") == 0
    monkeypatch.setattr(pdf, "MAX_OCR_PAGES", 12)
    assert pdf.pages_to_ocr(scan) == 12  # OCR stops there
    monkeypatch.setattr(pdf, "ocr_available", lambda: False)
    assert pdf.pages_to_ocr(scan) == 0  # without Tesseract no page is read: no time


def test_while_ocr_reads_a_scan_the_time_left_counts_its_pages(tmp_path, slow_ocr):
    seen, job = slow_ocr
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    RateBook(ws.root).record("fake-embedder", 1000, 10)  # embedding: 100 chunks a second
    runner = JobRunner(ws.root)
    job.append(runner.ingest(ws, "scans", [blank_pdf(tmp_path / "scan.pdf", PAGES)]))
    runner.wait(job[0].id, timeout=60)
    assert job[0].state == "done", job[0].summary
    during = [(read, status, left) for read, status, left in seen if read > 0]
    assert len(during) >= PAGES // 4
    for read, status, left in during:
        assert f"reading scanned pages (OCR) {read} of {PAGES}" in status
        assert left is not None and left >= (PAGES - read) * PAGE_SECONDS, (read, status, left)
    assert job[0].estimated_seconds >= PAGES * PAGE_SECONDS


def _ocr_event(done: int, total: int, number: int = 1, count: int = 1) -> IngestProgress:
    return IngestProgress("scan.pdf", number, count, "reading", 0.0, 0, 0, done, total)


def _apply(job: Job, changes: dict) -> None:
    for key, value in changes.items():
        setattr(job, key, value)


def test_the_drill_a_300_page_scan_says_minutes_not_one_second():
    """The drill's job, on a fake clock: 300 pages to OCR at 1 s a page, 2 chunks to embed."""
    work = JobWork([2], ["scan.pdf"], [300])
    job = Job("ingest", "scans", files=["scan.pdf"], state="reading", rate=100.0, work_total=2)
    _apply(job, work.observe(_ocr_event(0, 300), now=1000.0))
    # before a page is timed: the prior time per page
    assert job.remaining_seconds(now=1000.0) >= 300 * OCR_SECONDS_PER_PAGE / 8
    for done in range(2, 152, 2):  # two pages every two seconds, one per core
        _apply(job, work.observe(_ocr_event(done, 300), now=1000.0 + done))
    assert job.status().startswith("reading scanned pages (OCR) 150 of 300")
    left = job.remaining_seconds(now=1150.0 + 30)  # the clock runs on between two events
    assert left == pytest.approx(150 * 1.0 + 2 / 100.0, rel=0.01)  # its own 1 s a page


def test_time_in_ocr_is_not_counted_as_embedding_time():
    """A text embedded, then a scan read for 300 s, then its chunks: the job's rate is its
    embedding's alone (the time OCR took would have made it look 10 times slower)."""
    work = JobWork([600, 600], ["a.txt", "scan.pdf"], [0, 300])
    job = Job("ingest", "docs", files=["a.txt", "scan.pdf"], state="embedding", rate=10.0)
    for second in range(0, 31):  # a.txt: 10 chunks a second for 30 s
        _apply(job, work.observe(IngestProgress("a.txt", 1, 2, "embedding", 0.5, 10 * second,
                                                600, 0, 0), now=1000.0 + second))
    _apply(job, work.observe(IngestProgress("a.txt", 1, 2, "done", 1.0), now=1030.0))
    for done in range(0, 301, 2):  # OCR: 300 s
        _apply(job, work.observe(_ocr_event(done, 300, 2, 2), now=1030.0 + done))
    for second in range(1, 11):  # the scan's chunks, 10 a second again
        _apply(job, work.observe(IngestProgress("scan.pdf", 2, 2, "embedding", 0.5,
                                                10 * second, 600, 0, 0), now=1330.0 + second))
    assert job.work_done == 400 and job.ocr_left == 0
    left = job.remaining_seconds(now=1340.0)
    assert left == pytest.approx((900 - 400) / 10, rel=0.1)  # not 500 / (400 / 340 s)
    assert 1340.0 - job.work_started_at == pytest.approx(40, abs=1)  # what record_rate times


# -- issue 42: a fresh workspace (no embedding rate kept) says its time left from the first pages


def test_with_no_embedding_rate_mid_ocr_the_time_left_is_ocrs_and_says_so(tmp_path):
    """A fresh rates store: no rate for the model. OCR's time is still a number, from the job's
    first pages (4 s a page, not the 1 s prior), and the words say embedding is not in it."""
    rate = RateBook(tmp_path).rate("fake-embedder") or 0.0  # fresh: nothing measured
    work = JobWork([scan_chunks(300, splitter_for(None, None))], ["scan.pdf"], [300])
    job = Job("ingest", "scans", files=["scan.pdf"], state="reading", rate=rate,
              work_total=work.totals()[1])
    _apply(job, work.observe(_ocr_event(0, 300), now=1000.0))
    _apply(job, work.observe(_ocr_event(2, 300), now=1008.0))  # the first two pages: 8 s
    assert job.remaining_seconds(now=1008.0) == pytest.approx(298 * 4.0)
    left = job.time_left(now=1008.0)
    assert left.partial and left.describe() == \
        "OCR: about 20 min left; embedding not measured yet"
    assert job.status() == ("reading scanned pages (OCR) 2 of 300 · OCR: about 20 min left; "
                            "embedding not measured yet")
    bar = ProgressBar(io.StringIO())
    bar.follow(job)
    assert bar._line(_ocr_event(2, 300)).endswith(
        "(OCR: about 20 min left; embedding not measured yet)")
    job.rate = 25.0  # once a rate is known the words say the whole of it: 1,800 chunks more
    assert job.remaining_seconds(now=1008.0) == pytest.approx(298 * 4.0 + 1800 / 25.0)
    # the embedding not measured yet: at the kept rate, or 2.5 times slower on a busy computer
    assert job.time_left(now=1008.0).describe() == "between 20 min and 26 min left"


def test_a_scan_is_counted_in_chunks_from_its_pages_not_its_bytes(tmp_path, monkeypatch):
    """A scan's bytes are pictures: 24 pages of 12 MB made 144 chunks, not 4,000."""
    monkeypatch.setattr(pdf, "ocr_available", lambda: True)
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    scan = blank_pdf(tmp_path / "scan.pdf", PAGES)
    job = Job("ingest", "scans", files=[str(scan)])
    estimate.start_work(ws, job)
    assert job.work_total == PAGES * estimate.CHUNKS_PER_SCANNED_PAGE
    assert job.ocr_left == PAGES


def _jobs_listing(root: Path) -> str:
    """What `ragcore jobs` prints for the workspace at ``root``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--workspace", str(root), "jobs"], embedder=FakeEmbedder()) == 0
    return out.getvalue()


@pytest.fixture
def listed_mid_ocr(monkeypatch):
    """OCR that takes PAGE_SECONDS a page; once pages are read, each call keeps what
    `ragcore jobs` prints then (the journal written at every change)."""
    seen: list[tuple[int, str]] = []
    root: list[Path] = []
    read = [0]

    def ocr_images(images):
        if read[0]:
            seen.append((read[0], _jobs_listing(root[0])))
        time.sleep(PAGE_SECONDS * len(images))
        read[0] += len(images)
        return [f"Scanned page {read[0] - i} about budgets." for i in range(len(images))]

    monkeypatch.setattr(pdf, "ocr_available", lambda: True)
    monkeypatch.setattr(pdf, "ocr_images", ocr_images)
    monkeypatch.setattr(job_runner, "SAVE_EVERY", 0.0)
    return seen, root


def _ingest_scan(tmp_path: Path, root: list[Path]) -> Workspace:
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    root.append(ws.root)
    runner = JobRunner(ws.root)
    job = runner.ingest(ws, "scans", [blank_pdf(tmp_path / "scan.pdf", PAGES)])
    runner.wait(job.id, timeout=60)
    assert job.state == "done", job.summary
    return ws


def test_ragcore_jobs_shows_a_scans_time_left_mid_ocr_in_a_fresh_workspace(tmp_path,
                                                                           listed_mid_ocr):
    """No rate kept yet: the job times the embedder before OCR starts (its own embedding
    would come after every page), so the time left is whole from the first pages."""
    seen, root = listed_mid_ocr
    ws = _ingest_scan(tmp_path, root)
    assert RateBook(ws.root).rate("fake-embedder") is not None  # timed, kept for later jobs
    read, listing = seen[0]
    assert read <= 2
    assert f"reading scanned pages (OCR) {read} of {PAGES} · about " in listing
    assert "not measured" not in listing


def test_ragcore_jobs_says_ocrs_time_alone_when_the_embedder_could_not_be_timed(
        tmp_path, listed_mid_ocr, monkeypatch):
    seen, root = listed_mid_ocr
    monkeypatch.setattr(estimate, "_calibrated_rate", lambda ws, embedder, job: 0.0)
    _ingest_scan(tmp_path, root)
    read, listing = seen[0]
    assert read <= 2
    assert f"reading scanned pages (OCR) {read} of {PAGES} · OCR: about " in listing
    assert "left; embedding not measured yet" in listing
