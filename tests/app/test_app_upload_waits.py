"""The Upload page's Index button, greyed until an index is named and files added, says why
next to it (issue 66: it stayed greyed and nothing said so)."""

from __future__ import annotations

from test_app_pages import app_env, empty_ws, open_page  # noqa: F401


def index_button(at):
    return next(b for b in at.button if b.label.startswith("Index"))


def captions(at) -> list[str]:
    return [c.value for c in at.caption]


def test_the_greyed_index_button_says_what_it_waits_for(empty_ws):  # noqa: F811
    at = open_page("upload")
    assert index_button(at).disabled
    assert "Name the index and add files to start." in captions(at)
    at.file_uploader[0].set_value([("notes.txt", b"Tides follow the Moon.", "text/plain")]).run()
    assert index_button(at).disabled and index_button(at).label == "Index 1 file"
    assert "Name the index to start." in captions(at)
    at.text_input[0].set_value("Notes").run()
    assert not index_button(at).disabled
    assert not any(c.endswith("to start.") for c in captions(at)), captions(at)


def test_named_without_files_it_asks_for_files(empty_ws):  # noqa: F811
    at = open_page("upload")
    at.text_input[0].set_value("Notes").run()
    assert index_button(at).disabled
    assert "Add files to start." in captions(at)


def test_a_name_that_cannot_be_used_asks_for_a_usable_one(empty_ws):  # noqa: F811
    at = open_page("upload")
    at.file_uploader[0].set_value([("notes.txt", b"Tides follow the Moon.", "text/plain")]).run()
    at.text_input[0].set_value("..").run()
    assert index_button(at).disabled
    assert "Choose a usable name to start." in captions(at), captions(at)
