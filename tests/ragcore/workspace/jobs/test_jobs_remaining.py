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
from ragcore.workspace.jobs import remaining
from ragcore.workspace.jobs.remaining import human_duration

PDF = "nist_pdfs/NIST.SP800-30r1-RiskAssessment.pdf"  # 95 pages: counted 276, makes 426


def seconds_said(words: str) -> tuple[float, float]:
    """'between 7 s and 1 min 30 s left' -> (7, 90); 'about 3 s left' -> (3, 3)."""
    said = [60 * float(m or 0) + float(s or 0) for part in words.split(" and ")
            for m, s in re.findall(r"(?:(\d+) min)? ?(?:(\d+) s\b)?", part) if m or s]
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


# -- a mixed upload: short passages first, then long ones (issue 66, the sixth walk) -----------

SECONDS_PER_TOKEN = 0.0004  # the packaged model, beside a browser on two cores: 2,500 a second


def _records(tmp_path, corpus_dir):
    """A JSON Lines file of short records: a sentence of a speech each (passages of ~40
    tokens, where a novel's hold ~180)."""
    import json

    speech = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    lines = [s.strip() for s in re.split(r"(?<=[.?!])\s+", speech) if len(s.split()) > 6]
    path = tmp_path / "sayings.jsonl"
    path.write_text("".join(json.dumps({"n": n, "text": s}) + "\n"
                            for n, s in enumerate(lines[:600])))
    return path


def _embedded_tokens(path) -> list[int]:
    """The tokens embedded once each of the file's passages is, in the order it goes."""
    from itertools import accumulate

    from ragcore.readers import load_file
    from ragcore.tokens import get_tokenizer
    from ragcore.types import MetadataMode
    from ragcore.workspace.ingest.parts import path_hidden

    docs = list(path_hidden(load_file(path, doc_id_base=str(path))))
    nodes = splitter_for(None, None).get_nodes_from_documents(docs)
    texts = [n.content(MetadataMode.EMBED) for n in nodes]
    return [0, *accumulate(len(t) for t in get_tokenizer().encode_ordinary_batch(texts))]


def test_a_mixed_uploads_time_left_holds_after_its_short_passages(tmp_path, corpus_dir):
    """The walk: a PDF and a novel together, told "about 62 s" left 13 s in, took 84 s more.
    A passage takes time by its length (the model's cost is per token): the pace measured on
    short passages overstated that of the long ones to come. The job is replayed on a clock
    where each passage takes its tokens' time, and what it says is checked against that."""
    files = [_records(tmp_path, corpus_dir), corpus_dir / "gutenberg_books" / "pg1342.txt"]
    events = []
    report = Workspace(tmp_path / "ws", embedder=FakeEmbedder()).ingest(
        "docs", files, progress=events.append)
    assert report.failed == 0
    tokens = [_embedded_tokens(f) for f in files]
    assert tokens[0][-1] / (len(tokens[0]) - 1) < 0.4 * tokens[1][-1] / (len(tokens[1]) - 1)
    counts = [file_chunks(f, splitter_for(None, None)) for f in files]
    work = JobWork(counts, [f.name for f in files], passage_tokens=200)
    # this computer's kept rate: passages of a text (~180 tokens) a second
    job = Job("ingest", "docs", files=[str(f) for f in files],
              rate=1 / (180 * SECONDS_PER_TOKEN))
    clock, said = 1000.0, []
    for event in events:
        if event.stage == "embedding":
            before = sum(t[-1] for t in tokens[:event.file_number - 1])
            clock = 1000.0 + SECONDS_PER_TOKEN * (before + tokens[event.file_number - 1][
                min(event.chunks_done, len(tokens[event.file_number - 1]) - 1)])
        for key, value in work.observe(event, now=clock).items():
            setattr(job, key, value)
        if event.stage == "embedding":
            job.state = "embedding"
            said.append((clock, job.time_left(now=clock)))
    ended = 1000.0 + SECONDS_PER_TOKEN * sum(t[-1] for t in tokens)
    # from its first second measured: before, the short records are not known to be short
    off = [f"{at - 1000:.1f} s in: said {left.describe()!r} (middle {left.seconds:.1f} s), "
           f"really {ended - at:.1f} s" for at, left in said
           if left is not None and at - 1000 >= remaining.MIN_OBSERVED
           and not (left.low - 1 <= ended - at <= left.high + 1
                    and abs(left.seconds - (ended - at)) <= 0.3 * (ended - at) + 1)]
    assert len(said) > 20 and not off, "\n".join(off[:8])


def test_on_a_computer_off_its_kept_rate_the_range_allows_the_rest_to_go_slower():
    """The walk, 13 s in: its own rate measured on a PDF (passages of 158 tokens), this
    computer's kept rate 1.6 times as fast, a novel's passages (178 tokens) to come; the rest
    took 84 s. Counted in tokens the rest takes 65 s at its own rate, and its pace may sway on:
    the range said holds the 84 s."""
    job = Job("ingest", "docs", files=["a.pdf", "b.txt"], state="embedding", rate=29.0,
              work_total=1402, work_low=1402, work_high=1402, work_done=240,
              work_started_at=1000.0, work_base=0, rate_since=1000.0, rate_base=0,
              work_updated_at=1012.0, tokens_done=240 * 158, tokens_per_left=178.0)
    said = job.time_left(now=job.work_updated_at).describe()
    low, high = seconds_said(said)
    assert said.startswith("between ") and low <= 84 <= high, said


def test_a_resumed_files_saved_passages_do_not_make_its_passages_look_short():
    """Resumed, a file's 1,200 passages saved before are done at once, none of them embedded
    now: the length of its passages left is that of those embedded (120 tokens each)."""
    from ragcore.workspace.ingest.report import IngestProgress

    work = JobWork([2000], ["big.txt"], passage_tokens=200)
    for done, tokens in ((0, 0), (1200, 0), (1216, 16 * 120), (1248, 48 * 120)):
        changes = work.observe(IngestProgress("big.txt", 1, 1, "embedding", 0.5, done, 2000,
                                              tokens_done=tokens), now=1000.0 + done / 100)
    assert changes["tokens_per_left"] == pytest.approx(120)
