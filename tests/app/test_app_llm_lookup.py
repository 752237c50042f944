"""The app looks for its language model once per settings and environment: a lookup made with
one server address is not reused under another (``webapp.state._llm_lookup``; a test's loopback
server on a new port found the old, closed one)."""

from __future__ import annotations

from webapp import state


def test_a_new_server_address_is_a_new_lookup(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "ws"))
    monkeypatch.setenv("RAGCORE_LLM", "ollama:llama3.1")
    monkeypatch.setattr(state, "_find_llm", lambda lookup, *key: lookup.set_result(key))
    monkeypatch.setattr(state, "_LLM_LOOKUPS", {})
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://127.0.0.1:1111")
    first = state._llm_lookup(retry=False)
    assert state._llm_lookup(retry=False) is first  # the same settings: the same lookup
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://127.0.0.1:2222")
    assert state._llm_lookup(retry=False) is not first
