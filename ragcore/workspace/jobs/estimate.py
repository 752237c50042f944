"""How much work an ingest is, in chunks: the one place that counts it.

Before a job embeds anything, each file's chunks are counted: a text file by splitting its
first ``SAMPLE_BYTES`` with the index's splitter (exact for a file that small, else scaled by
its size), a PDF or office file from its size and a measured number of bytes per chunk of its
type. While the job runs, ``JobWork`` follows its progress events: a finished file counts the
chunks it really made, a file under way its exact count once the ingest has split it
(``lazy.ChunkCount``: most files at once), else the larger of its count and the projection,
and the files not started yet are scaled by how far off the count was for finished files of
their type. The bar is chunks done over chunks in all, across every file. The total's range
(``work_low`` to ``work_high``) is its own while every file is counted exactly; a file counted
from its size may make ``ROUGH_BY`` times fewer or more, one counted from a sample of its text
``TEXT_MARGIN`` (``remaining.py`` turns chunks into seconds). It follows the tokens embedded
too, and how long a passage left is (``tokens_per_left``): a model's time goes by tokens, so
short passages (a spreadsheet's rows, a PDF's page ends) go faster than a novel's.

A scanned PDF's pages to OCR are work too (``ocr_work``): counted at the start, their time is
added to the time left, the seconds spent in OCR are left out of the embedding rate, its
chunks are counted from its pages (its bytes are pictures), and with no rate kept the embedder
is timed before OCR starts.
"""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import remaining
from .ocr_work import OcrWork, count_ocr_pages
from .remaining import human_duration
from ..ingest.report import IngestProgress

if TYPE_CHECKING:
    from ..workspace import Workspace

logger = logging.getLogger(__name__)

SAMPLE_BYTES = 128 * 1024
# Bytes of file per chunk of 200 tokens (measured on the corpus in ../shared/corpus): their
# text is a small share of the file. Other types are read as text and split.
BYTES_PER_CHUNK = {".pdf": 3000, ".docx": 1500, ".pptx": 4000, ".xlsx": 1200, ".epub": 1000,
                   ".odt": 1500, ".doc": 1500, ".xls": 1200, ".ppt": 4000}
MEASURED_AT = 180  # chunk_size - chunk_overlap of those measurements
# Chunks a page read by OCR makes (24 pages of NIST SP 800-218 scanned at 200 dpi: 144 chunks;
# a scan's 12 MB would have counted 4,000 at BYTES_PER_CHUNK).
CHUNKS_PER_SCANNED_PAGE = 6
FINAL_STAGES = ("done", "failed", "unchanged")
# How far a count from a file's size may be off, either way: the six NIST PDFs of the corpus
# made 0.57 to 1.54 times their count, a 59-page paper 1.7 times (134 counted, 229 made).
ROUGH_BY = 2
# A passage of a text holds this share of the tokens the splitter allows (a novel's: 0.87-0.89,
# a PDF's 0.79-0.83): a file not embedded yet is taken to be of such passages.
FULL_SHARE = 0.9
MEASURED_PASSAGES = 8  # a file's passages embedded before their mean length stands for its rest
TEXT_MARGIN = 1.1  # a text counted from its first bytes, or projected from its split part


def chunk_estimate(name: str, size: int, head: bytes, splitter: Any, *, path: str = "") -> int:
    """A file's chunks, from its name, size in bytes and first bytes (``SAMPLE_BYTES``);
    ``path``: where it will be read from (its metadata header takes room in each chunk)."""
    if size <= 0:
        return 0
    per_chunk = BYTES_PER_CHUNK.get(Path(name).suffix.lower())
    if per_chunk is not None:
        step = max(splitter.chunk_size - splitter.chunk_overlap, 1)
        return max(1, round(size / per_chunk * MEASURED_AT / step))
    sample = head[:SAMPLE_BYTES]
    whole = size <= len(sample)
    if not whole:  # end at a line, not inside a word or a multi-byte character
        sample = sample[: sample.rfind(b"\n") + 1] or sample
    chunks = len(splitter.document_spans(_document(sample, name, path or name)))
    if whole or not sample:
        return max(chunks, 1)
    return max(1, round(chunks * size / len(sample)))


def scan_chunks(pages: int, splitter: Any) -> int:
    """The chunks of ``pages`` pages OCR will read. A PDF with some is counted so alone: its
    bytes are mostly pictures; the text pages of a mixed one are counted once it is split."""
    step = max(splitter.chunk_size - splitter.chunk_overlap, 1)
    return max(1, round(pages * CHUNKS_PER_SCANNED_PAGE * MEASURED_AT / step))


def file_chunks(path: Path, splitter: Any) -> int:
    """``chunk_estimate`` of a file on disk (0 if it cannot be read: it will fail quickly)."""
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return 0
    return chunk_estimate(path.name, size, _head(path), splitter, path=str(path))


def sample_chunks(head: bytes, splitter: Any, count: int = 16) -> list[str]:
    """A few chunks from the start of a text (to time the embedder on text like the real one)."""
    text = head[:SAMPLE_BYTES].decode("utf-8", errors="replace")
    spans = splitter.split_text_spans(text)[:count]
    return [text[start:end] for start, end in spans]


def _document(sample: bytes, name: str, path: str) -> Any:
    """A document like the one the workspace reads of the file (the same metadata header)."""
    from ...types import Document
    from ..ingest.parts import path_hidden

    return next(path_hidden([Document(text=sample.decode("utf-8", errors="replace"), metadata={
        "file_path": path, "file_name": name, "file_type": "text/plain", "file_size": 10**6,
        "creation_date": "2026-01-01", "last_modified_date": "2026-01-01"})]))


def splitter_for(chunk_size: int | None, chunk_overlap: int | None) -> Any:
    """The splitter an index uses (``handle.open_index``), for counting."""
    from ...chunking import SentenceSplitter

    options = {k: v for k, v in (("chunk_size", chunk_size), ("chunk_overlap", chunk_overlap))
               if v is not None}
    return SentenceSplitter(**options)


class JobWork:
    """A job's chunks done and in all, from its files' counts and its progress events."""

    def __init__(self, counts: list[int], names: list[str],
                 ocr_pages: list[int] | None = None, *, passage_tokens: int = 0) -> None:
        self.counts, self.passage_tokens = counts, passage_tokens  # the splitter's chunk_size
        self.ocr = OcrWork(ocr_pages or [0] * len(counts))
        self.kinds = [Path(n).suffix.lower() for n in names]
        self.done: dict[int, int] = {}  # file number -> chunks embedded so far
        self.seen: dict[int, int] = {}  # file number -> the splitter's projection
        self.exact: set[int] = set()  # file numbers whose projection is their exact count
        self.final: dict[int, int] = {}  # finished file number -> chunks it made
        self.tokens: dict[int, int] = {}  # file number -> tokens of its chunks embedded so far
        # file number -> [chunks, tokens] embedded in this job (not those saved before: a
        # resumed file's saved chunks are done, but say nothing of how long its passages are)
        self.measured: dict[int, list[int]] = {}
        self.started_at = 0.0  # time.time() of the first embedding event
        self.base = 0  # chunks done then
        self.updated_at = 0.0  # time.time() when the chunks done last changed
        self.last_done = 0
        # (time, chunks done, tokens done) since the start of the last TRUST_SECONDS: the job's
        # own rate is its recent one, so it follows a computer that other work slows or frees.
        self.points: deque[tuple[float, int, int]] = deque()
        self.tokens_base = 0  # tokens done at started_at

    def observe(self, event: IngestProgress, now: float | None = None) -> dict[str, Any]:
        """The job's counters after ``event``: work_done, work_total, fraction..."""
        number = event.file_number
        if event.chunks_total and number not in self.final:
            more = (event.chunks_done - self.done.get(number, 0),
                    event.tokens_done - self.tokens.get(number, 0))
            if more[0] > 0 and more[1] > 0:
                pair = self.measured.setdefault(number, [0, 0])
                pair[0], pair[1] = pair[0] + more[0], pair[1] + more[1]
            self.done[number], self.seen[number] = event.chunks_done, event.chunks_total
            self.tokens[number] = event.tokens_done
            if event.chunks_exact:
                self.exact.add(number)
        if event.stage in FINAL_STAGES and event.path and number not in self.final:
            self.final[number] = self.done.get(number, 0)
        done, total = self.totals()
        tokens = sum(self.tokens.values())
        now = now or time.time()
        reading = self._observe_ocr(event, now)
        if event.stage == "embedding" and not self.started_at:
            self.started_at, self.base, self.updated_at = now, done, now
            self.tokens_base = tokens
            self.points.append((now, done, tokens))
        elif done != self.last_done and self.started_at:
            self.updated_at = now
            self.points.append((now, done, tokens))
        self.last_done = done
        while len(self.points) > 1 and self.points[1][0] <= now - remaining.TRUST_SECONDS:
            self.points.popleft()  # the first point kept is the last one a window ago
        low, high = self.bounds()
        changes: dict[str, Any] = {"work_done": done, "work_total": total,
                                   "work_low": low, "work_high": high,
                                   "fraction": done / total if total else event.overall,
                                   "ocr_done": reading[0], "ocr_total": reading[1],
                                   "ocr_left": self.ocr.pages_left(),
                                   "ocr_page_seconds": self.ocr.page_seconds(),
                                   "tokens_done": tokens, "tokens_per_left": self.tokens_per_left()}
        if self.started_at:
            changes.update(work_started_at=self.started_at, work_base=self.base,
                           work_updated_at=self.updated_at, rate_since=self.points[0][0],
                           rate_base=self.points[0][1], tokens_base=self.tokens_base,
                           rate_tokens_base=self.points[0][2])
        return changes

    def _observe_ocr(self, event: IngestProgress, now: float) -> tuple[int, int]:
        """Follow the scanned pages; returns the file's (pages read, pages to read) while
        OCR reads it. Time in OCR moves the embedding clock on: it is not embedding."""
        self.ocr.current = event.file_number
        if event.stage != "reading":
            self.ocr.finish(event.file_number)
            return 0, 0
        if not event.ocr_total:
            return 0, 0
        spent = self.ocr.observe(event.file_number, event.ocr_done, event.ocr_total, now)
        if self.started_at and spent > 0:
            self.started_at += spent
            self.updated_at += spent
            self.points = deque((at + spent, *done) for at, *done in self.points)
        return event.ocr_done, event.ocr_total

    def totals(self) -> tuple[int, int]:
        done = total = 0
        for number in range(1, max(len(self.counts), max(self.done, default=0)) + 1):
            if number in self.final:
                done += self.final[number]
                total += self.final[number]
                continue
            now = self.done.get(number, 0)
            done += now
            total += self._count(number, now)
        return done, max(total, done)

    def tokens_per_left(self) -> float:
        """The tokens of a passage not embedded yet, on average over the files' passages left:
        a file's own so far once it has ``MEASURED_PASSAGES``, else a passage of text
        (``FULL_SHARE`` of ``passage_tokens``; unknown, the job's so far). 0: not known."""
        chunks, tokens = (sum(pair[i] for pair in self.measured.values()) for i in (0, 1))
        typical = self.passage_tokens * FULL_SHARE or tokens / max(chunks, 1)
        left = weighed = 0.0
        for number in range(1, max(len(self.counts), max(self.done, default=0)) + 1):
            now = self.done.get(number, 0)
            passages = 0 if number in self.final else self._count(number, now) - now
            chunks, tokens = self.measured.get(number, (0, 0))
            own = tokens / chunks if chunks >= MEASURED_PASSAGES else 0.0
            left, weighed = left + passages, weighed + passages * (own or typical)
        return weighed / left if left and weighed else 0.0

    def bounds(self) -> tuple[int, int]:
        """The fewest and most chunks the job may make in all (one figure once every file is
        counted exactly): a file counted from its size may be ``ROUGH_BY`` off either way,
        one counted from its text ``TEXT_MARGIN``."""
        low = high = 0
        for number in range(1, max(len(self.counts), max(self.done, default=0)) + 1):
            now = self.done.get(number, 0)
            count = self.final.get(number, self._count(number, now))
            if number in self.final or number in self.exact:
                low, high = low + count, high + count
                continue
            rough = number > len(self.counts) or self.kinds[number - 1] in BYTES_PER_CHUNK
            margin = ROUGH_BY if rough and number not in self.seen else TEXT_MARGIN
            low += max(now, round(count / margin))
            high += round(count * margin)
        return low, high

    def _count(self, number: int, now: int) -> int:
        """A file's chunks while it is not finished: its exact count once split, else the
        larger of its count and the ingest's projection."""
        if number in self.exact:
            return max(self.seen[number], now)
        return max(self._expected(number), self.seen.get(number, 0), now)

    def _expected(self, number: int) -> int:
        """The file's count, scaled by how far off the counts of finished files of its type
        were (a type measured in bytes per chunk can be off by half)."""
        if number > len(self.counts):
            return 0
        kind = self.kinds[number - 1]
        pairs = [(self.counts[n - 1], made) for n, made in self.final.items()
                 if n <= len(self.counts) and self.kinds[n - 1] == kind and made > 0]
        counted, made = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
        scale = made / counted if counted else 1.0
        return math.ceil(self.counts[number - 1] * scale)


@dataclass(slots=True, frozen=True)
class Forecast:
    """What a job of files will take on this computer, said before it starts; ``rough``: the
    passages counted from some files' sizes (a PDF or office file), not from their text."""

    chunks: int
    rate: float  # chunks per second
    rough: bool = False

    @property
    def seconds(self) -> float:
        return self.chunks / self.rate if self.rate > 0 else 0.0

    def describe(self) -> str:
        """'about 6.1 h on this computer (about 69,000 passages to index)'; counted from a
        file's size, the range it may fall in: the passages a PDF's bytes make vary by half
        either way (the count is refined from the text once the file is read)."""
        if not self.rough:
            return (f"about {human_duration(self.seconds)} on this computer (about "
                    f"{self.chunks:,} passages to index)")
        low, high = self.chunks // ROUGH_BY, self.chunks * ROUGH_BY
        return (f"roughly {human_duration(self.seconds)} on this computer (roughly "
                f"{self.chunks:,} passages to index, counted from file sizes: it may be "
                f"anywhere from {max(low, 1):,} to {high:,} passages, and the time with it)")


def forecast(ws: Workspace, index: str, files: list[tuple[str, int, bytes]], *,
             chunk_size: int | None = None, chunk_overlap: int | None = None,
             measure_above: int = 0) -> Forecast:
    """The chunks of ``files`` ((upload name or path, size in bytes, first bytes) each) and
    this computer's rate for the index's model, measuring it now (a second or two, after
    loading the model) if no job measured it yet. Counted with the index's chunking unless
    given. Fewer chunks than ``measure_above`` are not worth measuring for: the rate is then
    0 if none is kept."""
    from .rates import RateBook, machine_rate

    recorded = _chunking(ws, _Target(index, chunk_size, chunk_overlap))
    splitter = splitter_for(*recorded)
    folder = ws.upload_dir(index)
    chunks = sum(chunk_estimate(Path(name).name, size, head, splitter, path=str(folder / name))
                 for name, size, head in files)  # an uploaded name, or a path to read from
    texts = [head for name, _, head in files if Path(name).suffix.lower() not in BYTES_PER_CHUNK]
    samples = sample_chunks(texts[0], splitter) if texts else []
    embedder = job_embedder(ws, index)
    rough = any(Path(name).suffix.lower() in BYTES_PER_CHUNK for name, _, _ in files)
    if chunks < measure_above:
        return Forecast(chunks, RateBook(ws.root).rate(embedder.model_name) or 0.0, rough)
    return Forecast(chunks, machine_rate(ws.root, embedder, samples), rough)


def file_facts(path: Path) -> tuple[str, int, bytes]:
    """(absolute path, size, first bytes) of a file on disk, for ``forecast``."""
    path = Path(path).absolute()
    size = path.stat().st_size if path.is_file() else 0
    return str(path), size, _head(path)


@dataclass(slots=True)
class _Target:
    index: str
    chunk_size: int | None
    chunk_overlap: int | None


def start_work(ws: Workspace, job: Any) -> JobWork:
    """Count a job's files and look up this computer's rate for its model; sets the job's
    ``work_total``, ``rate`` and ``estimated_seconds``. It calibrates only for a job with pages
    to OCR and no rate kept (a job's first slice measures the rate soon enough, but a scan's
    comes after minutes of OCR); the Upload page and the CLI calibrate before a job starts."""
    from .rates import RateBook

    paths = [Path(f) for f in job.files]
    try:
        splitter = splitter_for(*_chunking(ws, job))
        pages = count_ocr_pages(paths)
        counts = [scan_chunks(n, splitter) if n else file_chunks(p, splitter)
                  for p, n in zip(paths, pages)]
        work = JobWork(counts, [p.name for p in paths], pages,
                       passage_tokens=getattr(splitter, "chunk_size", 0))
        embedder = job_embedder(ws, job.index)
        job.rate = RateBook(ws.root).rate(embedder.model_name) or 0.0
        if not job.rate and any(pages):
            job.rate = _calibrated_rate(ws, embedder, job)
        if not getattr(embedder, "loaded", True):  # load the model before the job's clock
            embedder.embed_batch(["warm up"])  # starts: its own rate is of embedding alone
    except Exception as exc:  # noqa: BLE001 - an estimate must never stop an ingest
        logger.warning("could not estimate job %s: %s", job.id, exc)
        return JobWork([], [])
    job.work_total = work.totals()[1]
    job.work_low, job.work_high = work.bounds()
    job.ocr_left, job.ocr_page_seconds = work.ocr.pages_left(), work.ocr.page_seconds()
    job.estimated_seconds = (job.work_total / job.rate if job.rate > 0 else 0.0) \
        + work.ocr.total_seconds()
    return work


def _calibrated_rate(ws: Workspace, embedder: Any, job: Any) -> float:
    """``rates.machine_rate`` (a second or two, kept for later jobs); 0 if the embedder fails:
    the job then says its time left is OCR's alone."""
    from .rates import machine_rate

    try:
        return machine_rate(ws.root, embedder)
    except Exception as exc:  # noqa: BLE001 - the ingest says what is wrong with the embedder
        logger.warning("could not time the embedder for job %s: %s", job.id, exc)
        return 0.0


def record_rate(ws: Workspace, job: Any) -> None:
    """Keep the rate a job measured (chunks embedded over the time since its first one)."""
    from .rates import RateBook

    if not job.work_started_at or job.work_done <= job.work_base:
        return
    try:
        model = job_embedder(ws, job.index).model_name
    except Exception as exc:  # noqa: BLE001 - the index was deleted meanwhile: nothing to keep
        logger.info("not keeping the rate of job %s: %s", job.id, exc)
        return
    RateBook(ws.root).record(model, job.work_done - job.work_base,
                             time.time() - job.work_started_at)


def job_embedder(ws: Workspace, index: str) -> Any:
    """The embedder an ingest into ``index`` uses (the settings' one for a new index)."""
    from ..backends import embedder_from_settings

    if ws.has_index(index):
        return ws.embedder_for(index)
    return ws.embedder_override or embedder_from_settings(ws.settings)


def _chunking(ws: Workspace, job: Any) -> tuple[int | None, int | None]:
    record = ws.record(job.index) if ws.has_index(job.index) else None
    size = job.chunk_size if job.chunk_size is not None else getattr(record, "chunk_size", None)
    overlap = job.chunk_overlap if job.chunk_overlap is not None \
        else getattr(record, "chunk_overlap", None)
    return size, overlap


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(SAMPLE_BYTES)
    except OSError:
        return b""
