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


def test_a_begun_reply_has_its_opening_in_front_and_stops_the_model_when_closed():
    from ragcore.streaming import begun_with

    stopped = []

    def model():
        try:
            yield "1867"
            yield "**."
            yield " More."
        finally:
            stopped.append(True)

    assert list(begun_with("**", model())) == ["**1867", "**.", " More."]
    stopped.clear()
    inner = model()  # held here, so only an explicit close would stop it
    reply = begun_with("**", inner)
    assert next(reply) == "**1867"
    reply.close()  # closed at its first chunk: the model is stopped there, not left open
    assert stopped == [True]
    assert list(begun_with("", iter(["a", "b"]))) == ["a", "b"]
