"""Local server presets and the one-request model test, against the loopback servers."""

from __future__ import annotations

import pytest
from support.loopback import Reply, loopback  # noqa: F401 (fixture)

from ragcore.errors import LLMResponseError, LLMStatusError
from ragcore.llms.presets import PRESETS, TEST_REPLY_TOKENS, preset_at, presets_for, try_model
from ragcore.http.servers import list_openai_models


def test_presets_give_each_local_server_its_usual_address():
    assert [(p.label, p.url) for p in presets_for("openai")] == [
        ("LM Studio", "http://127.0.0.1:1234/v1"),
        ("llama.cpp server", "http://127.0.0.1:8080/v1"),
        ("vLLM", "http://127.0.0.1:8000/v1")]
    assert [p.url for p in presets_for("ollama")] == ["http://127.0.0.1:11434"]
    assert preset_at("http://127.0.0.1:8080/v1/").label == "llama.cpp server"
    assert preset_at("http://example.com/v1") is None
    assert all(p.start for p in PRESETS)


def test_a_preset_style_address_lists_the_models_of_an_openai_compatible_server(loopback):
    # The presets end in /v1, as the loopback's OpenAI address does: /v1/models is asked.
    assert list_openai_models(loopback.openai_url) == list(loopback.models)
    assert loopback.requests[-1].path == "/v1/models"


def test_trying_an_ollama_model_sends_one_capped_request(loopback):
    loopback.queue(Reply(text="Hello there, nice day!"))
    check = try_model("ollama", {"url": loopback.ollama_url, "model": "llama3.1"})
    assert check.reply == "Hello there, nice day!"
    assert check.model == f"Ollama llama3.1 at {loopback.ollama_url}"
    assert check.seconds >= 0
    [request] = loopback.requests_to("/api/chat")
    assert request.json["options"]["num_predict"] == TEST_REPLY_TOKENS


def test_trying_an_openai_compatible_model_sends_one_capped_request(loopback):
    check = try_model("openai", {"url": loopback.openai_url, "model": "gpt-4o-mini"})
    assert check.reply.startswith("Echo: Say hello")
    assert loopback.requests_to("/v1/chat/completions")[0].json["max_tokens"] == 16


def test_a_model_that_fails_the_test_says_why(loopback):
    loopback.queue(Reply(text="", chunks=[]))
    with pytest.raises(LLMResponseError, match="answered the test with nothing"):
        try_model("ollama", {"url": loopback.ollama_url, "model": "llama3.1"})
    with pytest.raises(LLMStatusError, match="404"):
        try_model("ollama", {"url": loopback.ollama_url, "model": "missing"})
