"""Stopping a model download in a real Chromium: the Stop button ends it (issue 18).

AppTest runs one script run at a time, so it cannot click Stop while a download runs; here the
app runs under ``streamlit run`` against the loopback Ollama, whose download is slow on purpose.
Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import json

import pytest
from support.loopback import Reply, loopback  # noqa: F401 (fixture)
from test_browser import (  # noqa: F401 (fixture)
    _require_browser, _shot, _wait_idle, page, start_app, stop_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_stop_ends_a_download_and_changes_no_setting(page, loopback, tmp_path):
    from playwright.sync_api import expect

    _require_browser()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    settings = json.dumps({"llm_backend": "ollama",
                           "llms": {"ollama": {"url": loopback.ollama_url}}})
    (workspace / "settings.json").write_text(settings)
    loopback.queue(Reply(pull_size=2_000_000_000, pull_steps=200, chunk_delay=0.2))  # 40 s
    proc, url = start_app(workspace, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                          RAGCORE_LLM="")
    try:
        page.goto(f"{url}/settings")
        _wait_idle(page)
        page.get_by_role("textbox", name="Download a model").fill("llama3.2:1b")
        page.keyboard.press("Enter")
        _wait_idle(page)
        page.get_by_role("button", name="Download", exact=True).click()
        expect(page.get_by_text("Downloading:")).to_be_visible(timeout=30_000)
        _shot(page, "settings-downloading")
        page.get_by_role("button", name="Stop download").click()
        expect(page.get_by_text("The download of llama3.2:1b was stopped before it finished"
                                )).to_be_visible(timeout=30_000)
        _shot(page, "settings-download-stopped")
    finally:
        stop_app(proc)
    request = loopback.requests_to("/api/pull")[0]
    assert request.done.wait(10) and request.client_closed  # the download really ended
    assert "llama3.2:1b:latest" not in loopback.models and "llama3.2:1b" not in loopback.models
    assert (workspace / "settings.json").read_text() == settings
