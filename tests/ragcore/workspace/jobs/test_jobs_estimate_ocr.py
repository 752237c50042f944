"""A scanned PDF's time left counts its pages to OCR (issue 33 drill: a 5,000-page scan said
"about 1 s left" while OCR read its first 300 pages for over 300 s).

The job counts each PDF's pages without text before it starts; while OCR reads them, the time
left is the pages left times the seconds a page takes (a prior, then the job's own measure),
the job says "reading scanned pages (OCR) n of N", and the time OCR took is not counted as
embedding time. OCR is a fake here (``ocr_images`` monkeypatched: it sleeps a known time a
page), so Tesseract need not be installed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.readers.pdf import reader as pdf
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.estimate import JobWork
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
