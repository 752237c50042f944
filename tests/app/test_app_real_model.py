"""The app with the real packaged embedding model: upload, then ask, through the pages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")

pytestmark = pytest.mark.slow


@pytest.fixture
def real_ws(monkeypatch, tmp_path, real_embedder) -> Path:
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.delenv("RAGCORE_EMBEDDER", raising=False)
    return tmp_path / "ws"


def test_upload_and_query_with_the_packaged_model(real_ws, corpus_dir):
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("pages/upload.py").run()
    at.text_input[0].set_value("speech")
    speech = corpus_dir / "state_of_the_union" / "state_of_the_union.txt"
    at.file_uploader[0].set_value((speech.name, speech.read_bytes(), "text/plain")).run()
    next(b for b in at.button if b.label.startswith("Index")).click().run()
    from ragcore.workspace.jobs.runner import runner_for

    assert runner_for(real_ws).wait_idle(timeout=300)  # ingestion runs as a background job
    at.run()
    assert not at.exception
    assert at.dataframe[0].value["result"].iloc[0].startswith("indexed: ")

    at.switch_page("pages/indexes.py").run()
    assert not any("all-MiniLM" in m.value for m in at.markdown)  # its name under Advanced only

    at.switch_page("pages/query.py").run()
    at.text_input[0].set_value("What sanctions were imposed on Russia?").run()
    next(b for b in at.button if b.label == "Ask").click().run()
    assert not at.exception
    answer = at.markdown[0].value
    assert answer.startswith("Extractive answer")
    assert "Russia" in answer or "Putin" in answer
    labels = [e.label for e in at.expander if e.label.startswith("[")]
    # What the answer did with it; how close the search found it and its score (hybrid:
    # 0..1) only under Advanced.
    assert re.match(r"\[1\] state_of_the_union\.txt · (search: [a-z ]+ your question · "
                    r"score [01]\.\d{3} · )?(quoted in the answer|found by the search, not "
                    r"quoted)$", labels[0]), labels[0]
