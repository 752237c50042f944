"""``ragcore.streaming.TextStream.close``: a reply no longer read runs none of its remaining work
(a summary's next model call), keeps the text so far and reads as finished."""

from __future__ import annotations

from ragcore.streaming import TextStream


def test_closing_a_stream_closes_its_producer_and_keeps_the_text_so_far():
    made, closed = [], []

    def produce():
        try:
            for part in ("one ", "two ", "three "):
                made.append(part)
                yield part
        finally:
            closed.append(True)

    stream = TextStream(produce, on_complete=lambda text: made.append("completed"))
    chunks = iter(stream)
    assert next(chunks) == "one "
    stream.close()
    assert closed == [True] and made == ["one "]  # "two " never made, no completion
    assert stream.done and stream.text == "one "
    stream.close()  # closing again does nothing


def test_closing_a_finished_or_unread_stream_runs_nothing():
    runs = []
    finished = TextStream(lambda: iter(["all"]))
    assert finished.text == "all"
    finished.close()
    assert finished.text == "all"
    unread = TextStream(lambda: runs.append("ran") or iter(["x"]))
    unread.close()
    assert runs == [] and unread.text == ""
