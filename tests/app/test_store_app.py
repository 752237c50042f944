"""The app's store choice: a new index created on the Upload page over an embedded Chroma
folder keeps its vectors there, and the Indexes page says where they are."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

pytest.importorskip("chromadb", reason="needs chromadb: pip install '.[chroma]'")

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90


@pytest.fixture
def workspace_root(monkeypatch, tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


def _page(at: AppTest, page: str) -> AppTest:
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_new_index_can_keep_its_vectors_in_chroma(workspace_root, tmp_path):
    from ragcore.workspace.jobs.runner import runner_for

    at = _page(AppTest.from_file(APP, default_timeout=TIMEOUT).run(), "upload")
    at.text_input[0].set_value("owls")
    choice = next(s for s in at.selectbox if s.label == "Where to keep the index")
    choice.set_value("Chroma database in a folder on this machine").run()
    location = next(t for t in at.text_input if t.label == "Store location")
    location.set_value(f"chroma:{tmp_path / 'chroma'}")
    at.file_uploader[0].set_value(("owls.txt", b"Owls hunt at night. They eat mice.",
                                   "text/plain")).run()
    next(b for b in at.button if b.label == "Index 1 file").click().run()
    assert runner_for(workspace_root).wait_idle(timeout=TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]

    ws = Workspace(workspace_root, embedder=FakeEmbedder())
    assert ws.record("owls").store == f"chroma:{(tmp_path / 'chroma')}"
    index = ws.load_index("owls")
    assert type(index.store).__name__ == "ChromaVectorStore" and len(index.store) == len(index) > 0
    _page(at, "indexes")
    kept = at.dataframe[0].value["kept in"].tolist()  # the store's place; the caption's is Advanced's
    assert kept == [f"chroma:{tmp_path / 'chroma'}"], kept
