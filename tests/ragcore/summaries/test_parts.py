"""A fresh summary part by part (``ragcore.summaries.parts``): what each part reads, headings
before the model's words, and Stop running none of the remaining calls. Fake model and
vectors: the planning is arithmetic, the driver a loop."""

from __future__ import annotations

import numpy as np

from ragcore.llms.fake import FakeLLM
from ragcore.summaries.parts import (
    MAX_PARTS, PART_TOKENS, TOKENS_PER_WORD, first_sentences, plan_parts, reading_line,
    write_parts,
)
from ragcore.types import Node


def document(chunks: int, words: int = 120) -> tuple[list[Node], np.ndarray]:
    """``chunks`` nodes of ``words`` words on pages of three chunks, with random unit rows."""
    nodes = [Node(" ".join(f"w{i}_{j}" for j in range(words)),
                  metadata={"page_label": str(i // 3 + 1)}) for i in range(chunks)]
    vectors = np.random.default_rng(7).normal(size=(chunks, 16)).astype(np.float32)
    return nodes, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_a_long_document_is_read_in_at_most_max_parts_consecutive_parts_within_the_budget():
    nodes, vectors = document(60)
    parts = plan_parts(nodes, vectors)
    assert len(parts) == MAX_PARTS
    assert sum(p.passages for p in parts) == 60  # every passage is in one part
    order = [int(t.split("_")[0][1:]) for p in parts for t in p.texts]
    assert order == sorted(order)  # read in document order, parts one after another
    for part in parts:  # the most central that fit, the first always
        assert 1 <= len(part.texts) < part.passages
        assert len(part.texts) == 1 or part.words * TOKENS_PER_WORD <= PART_TOKENS
    assert parts[0].heading == "Part 1 of 6 · pages 1-4"
    assert parts[-1].where.endswith("-20")


def test_a_short_document_is_one_part_read_whole():
    nodes, vectors = document(2, words=50)
    parts = plan_parts(nodes, vectors)
    assert [(p.passages, len(p.texts), p.where) for p in parts] == [(2, 2, "page 1")]
    assert plan_parts([], np.zeros((0, 16))) == []


def test_each_heading_comes_before_its_part_is_read_and_the_words_read_are_counted():
    nodes, vectors = document(30)
    parts = plan_parts(nodes, vectors, max_parts=3)
    llm, read = FakeLLM(["First part.", "Second part.", "Third part."]), {}
    stream = write_parts(llm, parts, "A report", read=read)
    assert next(stream) == "**Part 1 of 3 · pages 1-4**\n\n" and llm.calls == []
    assert reading_line(read) == (f"Reading part 1 of 3 (pages 1-4): 0 of {read['words']:,} "
                                  "words read so far.")
    text = "".join(stream)
    assert len(llm.calls) == 3 and "First part." in text and "**Part 3 of 3" in text
    assert "are part 2 of 3 · pages 4-7 of “A report”" in llm.calls[1][-1].content  # its part
    assert read["words_read"] == read["words"] and reading_line(read).startswith("Read all 3")


def test_stopping_after_the_first_part_runs_none_of_the_remaining_model_calls():
    nodes, vectors = document(60)
    llm = FakeLLM(default="Some sentences on this part.")
    stream = write_parts(llm, plan_parts(nodes, vectors), "A report", read={})
    seen = ""
    while "Part 2 of" not in seen:
        seen += next(stream)
    stream.close()  # Stop: the page stops reading, the reply's generator is closed
    assert len(llm.calls) == 1


def test_a_parts_summary_ends_with_its_first_paragraph():
    """The model is asked to stop at a blank line: it went on copying the passages."""

    class Stopping(FakeLLM):
        def with_stop(self, stop):
            self.stops = list(stop)
            return self

    nodes, vectors = document(6)
    llm = Stopping(default="One paragraph.")
    "".join(write_parts(llm, plan_parts(nodes, vectors), "A report", read={}))
    assert llm.stops == ["\n\n"]


def test_a_parts_summary_is_cut_after_three_sentences_and_the_model_stopped():
    closed = []

    def reply():
        try:
            yield from ["It opens. ", "Then “it ", "goes on.” And on. ", "And on", " again. ",
                        "More."]
        finally:
            closed.append(True)

    source = reply()  # held here: only closing it ends it (the model's stream is held so too)
    cut = "".join(first_sentences(source, 3))
    assert cut.rstrip() == "It opens. Then “it goes on.” And on."
    assert closed == [True]
    assert "".join(first_sentences(iter(["Only one."]), 3)) == "Only one."
