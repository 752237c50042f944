"""Evidence first (issue 32), in a real Chromium: on the Query page the passages found are on
screen while the model's answer still streams, and the numbered sources replace them once it
ends. The model is the loopback Ollama server of tests/support/loopback.py writing a word every
``WORD_SECONDS``; the embedder is the fake one, so the walk needs no model."""

from __future__ import annotations

import pytest
from support.loopback import LoopbackServer, Reply
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WORD_SECONDS = 0.25
REPLY = ("**Beautiful is better than ugly.** The Zen of Python lists it first, before "
         "explicit over implicit and simple over complex, as the aphorisms of the language.")


def test_the_passages_show_while_the_answer_streams(page, tmp_path, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "docs", [corpus_dir / "python_peps" / "pep-0020.rst"])
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY, chunk_delay=WORD_SECONDS) for _ in range(4)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            page.goto(f"{url}/query")
            question = page.get_by_role("textbox", name="Your question")
            expect(question).to_be_visible(timeout=120_000)
            question.fill("What does the Zen of Python say about beauty?")
            question.press("Enter")
            found = page.get_by_text("Passages found")
            expect(found).to_be_visible(timeout=60_000)
            assert "aphorisms of the language" not in page.content()  # still streaming
            _shot(page, "evidence-first-1-passages-while-streaming")
            expect(page.get_by_text("aphorisms of the language")).to_be_visible(timeout=60_000)
            expect(found).to_have_count(0, timeout=30_000)
            expect(page.get_by_text("Sources (")).to_be_visible()
            _wait_idle(page)
        except BaseException:
            _shot(page, "evidence-first-failed-here")
            raise
        finally:
            stop_app(proc)
