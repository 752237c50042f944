"""A job's scanned pages: counted before it starts, timed as OCR reads them.

``estimate.JobWork`` counts a job's work in chunks to embed; a scanned PDF has few of those
and hundreds of pages to OCR first, at seconds a page. So each PDF's pages without text are
counted when the job starts (``readers.pdf.pages_to_ocr``, at most its ``MAX_OCR_PAGES``),
and ``OcrWork`` follows the reader's OCR progress events: the pages left (of the file under
way as the reader counted them, and of the files to come as counted at the start) times the
seconds a page takes. That is ``OCR_SECONDS_PER_PAGE`` over the cores at first, then the job's
own measure from its first pages read (a core's worth at a time): the prior can be off
fourfold. The seconds spent in OCR are also what ``JobWork`` leaves out of the job's embedding
rate.
"""

from __future__ import annotations

import os
from pathlib import Path

# Tesseract on a 300-dpi A4 page, one thread: about 2 s on this project's 2-core machine
# (the drill of issue 33: 300 scanned pages took over 300 s, one page per core at a time).
OCR_SECONDS_PER_PAGE = 2.0
# Pages read before the job's own time per page replaces the prior one: the first batch.
# Dense NIST pages took 4 s each here, two at a time, where the prior says 1; waiting for a
# second batch kept that wrong number on screen as long again.
MIN_TIMED_PAGES = 1


def count_ocr_pages(paths: list[Path]) -> list[int]:
    """Each file's pages OCR will read (0 for a file that is not a PDF)."""
    from ...readers.pdf.reader import pages_to_ocr

    return [pages_to_ocr(p) if p.suffix.lower() == ".pdf" else 0 for p in paths]


class OcrWork:
    """Scanned pages left in a job, and the seconds each takes."""

    def __init__(self, counts: list[int], *, cores: int | None = None) -> None:
        self.counts = counts  # pages counted before the job, per file
        self.seen: dict[int, tuple[int, int]] = {}  # file number -> (done, total), as read
        self.finished: set[int] = set()
        self.current = 0  # the file under way: those before it are read
        self.prior = OCR_SECONDS_PER_PAGE / max(1, cores or os.cpu_count() or 1)
        self.timed_pages = 0
        self.timed_seconds = 0.0
        self._last: tuple[int, float] | None = None  # (file, time) of the last OCR event

    def observe(self, number: int, done: int, total: int, now: float) -> float:
        """Note an OCR event of file ``number``; returns the seconds spent in OCR since the
        file's previous one (0 for its first)."""
        before = self.seen.get(number, (0, total))[0]
        self.seen[number] = (done, total)
        spent = now - self._last[1] if self._last and self._last[0] == number else 0.0
        self._last = (number, now)
        if done > before:
            self.timed_pages += done - before
            self.timed_seconds += spent
        return spent

    def finish(self, number: int) -> None:
        """File ``number`` is read (or failed): none of its pages are left."""
        self.finished.add(number)
        if self._last and self._last[0] == number:
            self._last = None

    def page_seconds(self) -> float:
        """Seconds a page takes: the job's own measure once it has one, else the prior."""
        if self.timed_pages >= MIN_TIMED_PAGES and self.timed_seconds > 0:
            return self.timed_seconds / self.timed_pages
        return self.prior

    def pages_left(self) -> int:
        """Pages still to read by OCR, in every file not read yet."""
        left = 0
        for number in range(max(self.current, 1), len(self.counts) + 1):
            if number in self.finished:
                continue
            done, total = self.seen.get(number, (0, self.counts[number - 1]))
            left += max(total - done, 0)
        return left

    def total_seconds(self) -> float:
        """The job's OCR in all, at the prior time per page (its first estimate)."""
        return sum(self.counts) * self.prior
