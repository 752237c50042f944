"""The app on a server that shares nothing with another but ``RAGCORE_DATABASE_URL`` (issue 35):
an index the other server ingested into the database is listed, described and answered from,
and a batch queued for workers shows in the sidebar with its progress."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.queued_ingest import queue_ingest
from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database
from test_app_pages import APP, TIMEOUT, app_env, ask, open_page, source_expanders  # noqa: F401


@pytest.fixture
def other_server(tmp_path, corpus_dir, pg_team_url, monkeypatch):  # noqa: F811
    monkeypatch.setenv("RAGCORE_INDEX_HOME", "database")
    server_a = Workspace(tmp_path / "server_a", embedder=FakeEmbedder())
    server_a.create_index("speeches")
    speech = corpus_dir / "state_of_the_union" / "state_of_the_union.txt"
    server_a.ingest("speeches", [server_a.save_upload("speeches", speech.name,
                                                      speech.read_bytes())])
    pep = next((corpus_dir / "python_peps").glob("pep-0020.rst"))
    job = queue_ingest(server_a, "speeches", [pep])  # no worker runs: it stays queued
    shutil.rmtree(server_a.root)  # another machine's folder: nothing of it is here
    return job


def test_another_servers_index_is_listed_answered_and_its_queue_shown(app_env, tmp_path,
                                                                     other_server):
    root = app_env(tmp_path / "server_b")  # this server's own, empty folder
    at = open_page("indexes")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Files"] == "1" and int(metrics["Passages"]) > 10, metrics
    assert any("Workers: speeches: 0 of 1 batches" in p.proto.text for p in at.get("progress"))
    at = ask(open_page("query"), "What did the speech say about Ukraine and Putin?")
    assert source_expanders(at)[0].startswith("[1] state_of_the_union.txt")
    assert not (Path(root) / "indexes").exists()
    # The upload was server A's: this server opens it from the database.
    next(b for b in at.button if b.label == "Open in document").click().run()
    assert not at.exception, [e.value for e in at.exception]
    frames = [f.proto for f in at.get("iframe")]
    assert frames and 'id="rc-passage-start"' in frames[0].srcdoc


def test_the_upload_page_makes_an_index_in_the_database_when_asked(app_env, tmp_path,
                                                                  corpus_dir, pg_team_url):  # noqa: F811
    from test_app_pages import button, finish_jobs

    root = app_env(tmp_path / "server")
    at = open_page("upload")
    at.text_input[0].set_value("team_docs")
    where = next(s for s in at.selectbox if s.label == "Where to keep the index")
    assert "In the database" in where.options[-1]
    where.set_value(where.options[-1]).run()
    pep = corpus_dir / "python_peps" / "pep-0020.rst"
    at.file_uploader[0].set_value([("pep-0020.rst", pep.read_bytes(), "text/rst")]).run()
    button(at, "Index 1 file").click().run()
    finish_jobs(at, root)
    assert not at.exception, [e.value for e in at.exception]
    elsewhere = Workspace(tmp_path / "another", embedder=FakeEmbedder())
    assert elsewhere.index_names() == ["team_docs"] and elsewhere.in_database("team_docs")
    assert [r["file"] for r in elsewhere.documents("team_docs")] == ["pep-0020.rst"]
