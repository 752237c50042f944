"""The app for people (issue 13), driven headless with AppTest: summaries on the Indexes page
and in chat, chat history, simple by default. Fake embedder and the extractive backend, so the
summaries are the offline (extractive) ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

APP = str(Path(__file__).resolve().parents[1] / "app.py")
TIMEOUT = 90


@pytest.fixture(scope="module")
def built_workspace(tmp_path_factory, corpus_dir) -> Path:
    root = tmp_path_factory.mktemp("people") / "ws"
    ws = Workspace(root, embedder=FakeEmbedder())
    report = ws.ingest("docs", [corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
                                corpus_dir / "python_peps" / "pep-0020.rst"])
    assert report.failed == 0
    return root


@pytest.fixture
def docs_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    shutil.copytree(built_workspace, root)
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


def open_page(page: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r} in {[b.label for b in at.button]}"
    return matches[0]


def texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_indexes_page_summarises_a_document_and_the_index(docs_ws):
    at = open_page("indexes")
    button(at, "Summarise this index").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Summary of “docs”" in texts(at)
    assert any("extractive summary" in c.value for c in at.caption)
    button(at, "Summarise").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Summary of state_of_the_union.txt" in texts(at)
    assert list((docs_ws / "summaries").glob("*.json"))  # cached for the next time
