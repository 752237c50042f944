"""The Upload page before a job starts (issue 18): how long it will take on this computer, a
confirmation for a long one; the index in use after a reload; stray uploads by typed name.

AppTest with the fake embedder (``RAGCORE_EMBEDDER=fake``); the machine's rate for it is set in
the workspace's rate book, as earlier jobs would have left it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.names import set_display_name
from ragcore.workspace.jobs.rates import RateBook
from test_app_pages import APP, TIMEOUT, app_env, button, finish_jobs, open_page  # noqa: F401



@pytest.fixture
def ws_root(app_env, tmp_path) -> Path:
    root = app_env(tmp_path / "ws")
    Workspace(root, embedder=FakeEmbedder()).create_index("docs")
    RateBook(root).record("fake-embedder", 100, 100)  # this computer: 1 chunk a second
    return root


def _jobs(root: Path) -> list:
    from ragcore.workspace.jobs.runner import runner_for

    return runner_for(root).jobs()


def test_a_long_upload_says_how_long_and_starts_only_when_confirmed(ws_root, corpus_dir):
    book = (corpus_dir / "gutenberg_books" / "pg1342.txt").read_bytes()  # about 1,100 chunks
    at = open_page("upload")
    at.file_uploader[0].set_value(("pride.txt", book, "text/plain")).run()
    said = [c.value for c in at.caption if c.value.startswith("Indexing takes")]
    assert said and "min on this computer" in said[0] and "passages" in said[0]
    button(at, "Index 1 file").click().run()
    assert not _jobs(ws_root)  # nothing started yet: it asks
    assert "on this computer" in at.warning[0].value and "Start it?" in at.warning[0].value
    button(at, "Cancel").click().run()
    assert not at.warning and not _jobs(ws_root)
    assert [b.label for b in at.button if b.label == "Start anyway"] == []

    button(at, "Index 1 file").click().run()
    button(at, "Start anyway").click().run()
    finish_jobs(at, ws_root)
    (job,) = _jobs(ws_root)
    assert job.state == "done" and job.files[0].endswith("pride.txt")
    assert not at.warning or "on this computer" not in at.warning[0].value


def test_a_short_upload_starts_at_once_and_says_its_time(ws_root):
    at = open_page("upload")
    at.file_uploader[0].set_value(("owls.txt", b"Owls hunt at night.", "text/plain")).run()
    assert any(c.value.startswith("Indexing takes about 1 s on this computer")
               for c in at.caption)
    button(at, "Index 1 file").click().run()
    finish_jobs(at, ws_root)
    assert [j.state for j in _jobs(ws_root)] == ["done"]


def _index_box(at: AppTest):
    return next(s for s in at.selectbox if s.label == "Index")


def test_after_a_reload_upload_preselects_the_index_in_use_not_the_first(ws_root):
    Workspace(ws_root, embedder=FakeEmbedder()).create_index("reports")
    at = open_page("upload")
    assert _index_box(at).value == "docs"  # the first, to begin with
    _index_box(at).set_value("reports").run()
    reloaded = open_page("upload", AppTest.from_file(APP, default_timeout=TIMEOUT).run())
    assert _index_box(reloaded).value == "reports"
    assert _index_box(open_page("query")).value == "reports"  # every page: the one in use


def test_the_stray_uploads_box_names_the_index_as_typed(ws_root):
    ws = Workspace(ws_root, embedder=FakeEmbedder())
    ws.create_index("Contrats-ete")
    set_display_name(ws, "Contrats-ete", "Contrats été")
    ws.save_upload("Contrats-ete", "lost.txt", b"An upload whose indexing was cancelled.")
    at = open_page("upload")
    _index_box(at).set_value("Contrats-ete").run()
    labels = [e.label for e in at.expander]
    assert "1 uploaded file of “Contrats été” is not in the index" in labels, labels
