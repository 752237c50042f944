"""'Open in document' for a text file (issue 66), headless with AppTest: the document is drawn
in an iframe without a deprecation warning from Streamlit (``components.v1.html`` is removed
after 2026-06-01), the passage marked in it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _script(path: str) -> None:
    from pathlib import Path

    from ragcore.types import Node
    from webapp.indexes.document_view import show_text

    text = Path(path).read_text(encoding="utf-8")
    start = text.index("The program")
    node = Node(text[start:], start_char=start, end_char=len(text),
                metadata={"file_name": Path(path).name})
    show_text(Path(path), node, [])


def test_a_text_document_is_shown_without_a_deprecation_warning(tmp_path, monkeypatch):
    from streamlit import deprecation_util

    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nAn opening line.\n\nThe program is 2000 lines of C++.\n",
                     encoding="utf-8")
    warned: list[str] = []
    monkeypatch.setattr(deprecation_util, "show_deprecation_warning",
                        lambda message, *args, **kwargs: warned.append(message))
    at = AppTest.from_function(_script, args=(str(notes),), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not warned, warned
    frames = at.get("iframe")
    assert len(frames) == 1 and "2000 lines of C++" in frames[0].proto.srcdoc


def test_the_caption_names_only_the_tints_left_visible():
    # Issue 66: "the passage is tinted blue, the words the answer used orange" when the answer
    # used the whole passage, so its orange covered all the blue.
    from ragcore.present.passage.page_boxes import Rect
    from webapp.indexes.document_view import drawn_tints, tints_said

    lines = [Rect(10, 10, 300, 24), Rect(10, 26, 180, 40)]
    covered = tints_said(drawn_tints(lines, list(lines)))
    assert "blue" not in covered and "orange" in covered
    half = tints_said(drawn_tints(lines, [Rect(10, 10, 300, 24)]))
    assert "blue" in half and "orange" in half
    assert tints_said({"passage"}) == "the passage is tinted blue."


def test_a_text_document_wholly_used_is_not_said_to_be_blue(tmp_path):
    from ragcore.types import Node
    from webapp.indexes.document_view import show_text

    notes = tmp_path / "notes.txt"
    notes.write_text("An opening line.\n\nThe program is 2000 lines of C++.\n", encoding="utf-8")
    text = notes.read_text(encoding="utf-8")
    start = text.index("The program")
    node = Node(text[start:], start_char=start, end_char=len(text),
                metadata={"file_name": notes.name})
    assert show_text(notes, node, [(0, len(node.text))]) == {"cited"}
