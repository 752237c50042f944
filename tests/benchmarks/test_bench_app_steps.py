"""What ``benchmarks/pipeline/bench_app``'s browser walk waits for is what the Chat page really
shows.

The walk once waited for "How this answer was made", which the page shows only under Advanced,
so the whole app group timed out into one "failed" row. The browser walk itself runs in
``python -m benchmarks --only app``; this checks its marker against the page, headless.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.pipeline.bench_app import TURN_DONE


def test_the_simple_chat_page_ends_a_turn_with_the_caption_the_benchmark_waits_for(
        monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace

    notes = tmp_path / "owls.txt"
    notes.write_text("Owls hunt at night. Their feathers are silent.", encoding="utf-8")
    Workspace(tmp_path / "ws", embedder=FakeEmbedder()).ingest("docs", [notes])
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    app = str(Path(__file__).resolve().parents[2] / "app.py")
    at = AppTest.from_file(app, default_timeout=60).run()
    at.switch_page("pages/chat.py").run()
    at.chat_input[0].set_value("How do owls hunt?").run()
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any(TURN_DONE.match(c) for c in captions), captions
    assert "How this answer was made" not in [e.label for e in at.expander]  # Advanced only
