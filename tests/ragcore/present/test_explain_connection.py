"""The unreachable-server message (issue 13): no OS error numbers, no doubled '.).', and the
hint for the backend configured (no Ollama advice for an OpenAI-compatible server)."""

from __future__ import annotations

from ragcore.errors import LLMConnectionError
from ragcore.present.explain import explain_error


def test_openai_connection_error_reads_plainly_without_an_ollama_hint():
    exc = LLMConnectionError(
        "Could not connect to OpenAI-compatible server at http://127.0.0.1:9/v1 (model gpt-x): "
        "[Errno 111] Connection refused. Check that the server is running and that the base "
        "URL is right (it usually ends in /v1).")
    text = str(explain_error(exc))
    assert "Errno" not in text and ".)." not in text and "ollama" not in text.lower()
    assert "http://127.0.0.1:9/v1" in text and "Connection refused" in text


def test_ollama_connection_error_keeps_its_own_hint_once():
    exc = LLMConnectionError("Could not connect to Ollama at http://127.0.0.1:9 (model llama3): "
                             "[Errno 111] Connection refused. Start Ollama (`ollama serve`).")
    text = str(explain_error(exc))
    assert text.count("ollama serve") == 1 and "Errno" not in text
