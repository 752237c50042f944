"""Choosing the default LLM: explicit spec, RAGCORE_LLM, a local Ollama, else extractive."""

from __future__ import annotations

import pytest
from support.loopback import LoopbackServer, loopback, unused_url  # noqa: F401 (fixture)

from ragcore.errors import ConfigError
from ragcore.llms.presets import PRESETS
from ragcore.llms import (
    ExtractiveLLM,
    OllamaLLM,
    OpenAILLM,
    describe_llm,
    resolve,
    resolve_llm,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in ("RAGCORE_LLM", "RAGCORE_LLM_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    # The real probe waits 0.3 s; a loaded CI machine may answer slower than that.
    monkeypatch.setattr(resolve, "PROBE_SECONDS", 5.0)


def test_explicit_specs():
    assert isinstance(resolve_llm("extractive"), ExtractiveLLM)
    ollama = resolve_llm("ollama:llama3.1", base_url="http://10.0.0.5:11434", timeout=60)
    assert isinstance(ollama, OllamaLLM)
    assert (ollama.model_name, ollama.base_url) == ("llama3.1", "http://10.0.0.5:11434")
    assert ollama.connection.timeout.read == 60
    openai = resolve_llm("openai:gpt-4o-mini", api_key="sk-x")
    assert isinstance(openai, OpenAILLM)
    assert openai.connection.headers == {"Authorization": "Bearer sk-x"}


def test_a_model_spec_round_trips_through_llm_model():
    llm = resolve_llm("ollama:qwen2.5:7b")
    assert llm.model == "ollama:qwen2.5:7b" and llm.model_name == "qwen2.5:7b"
    assert resolve_llm(llm.model).model == llm.model


@pytest.mark.parametrize("spec", ["gpt-4", "openai", "extractive:x", "anthropic:claude", ""])
def test_unknown_specs_say_what_is_accepted(spec):
    with pytest.raises(ConfigError, match="ollama:MODEL"):
        resolve_llm(spec)


def test_environment_variables_come_after_an_explicit_spec(monkeypatch, loopback):
    monkeypatch.setenv("RAGCORE_LLM", "openai:local-model")
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", loopback.openai_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    llm = resolve_llm()
    assert isinstance(llm, OpenAILLM)
    assert (llm.model_name, llm.base_url) == ("local-model", loopback.openai_url)
    assert llm.connection.headers == {"Authorization": "Bearer sk-env"}
    assert isinstance(resolve_llm("extractive"), ExtractiveLLM)


def test_a_bad_environment_variable_is_named(monkeypatch):
    monkeypatch.setenv("RAGCORE_LLM", "llama")
    with pytest.raises(ConfigError, match="RAGCORE_LLM"):
        resolve_llm()


def test_a_local_ollama_that_answers_is_used_with_its_first_chat_model():
    with LoopbackServer(models=["nomic-embed-text:latest", "qwen2.5:7b", "llama3.1:latest"]) as s:
        llm = resolve_llm(base_url=s.ollama_url)
        assert isinstance(llm, OllamaLLM)
        assert (llm.model_name, llm.base_url) == ("qwen2.5:7b", s.ollama_url)
        assert resolve_llm("ollama", base_url=s.ollama_url).model_name == "qwen2.5:7b"
        assert [r.path for r in s.requests] == ["/api/tags", "/api/tags"]


def test_an_ollama_without_chat_models_falls_back_to_extractive():
    with LoopbackServer(models=["nomic-embed-text:latest"]) as server:
        assert isinstance(resolve_llm("auto", base_url=server.ollama_url), ExtractiveLLM)
        with pytest.raises(ConfigError, match="ollama pull"):
            resolve_llm("ollama", base_url=server.ollama_url)


def test_no_server_falls_back_to_extractive():
    assert isinstance(resolve_llm(base_url=unused_url()), ExtractiveLLM)


def test_describe_llm(loopback):
    assert describe_llm(ExtractiveLLM()) == "Extractive (offline, no language model)"
    assert describe_llm(OllamaLLM(model="llama3.1")) == (
        "Ollama llama3.1 at http://127.0.0.1:11434")
    assert describe_llm(OpenAILLM(model="m", base_url=loopback.openai_url)) == (
        f"OpenAI-compatible m at {loopback.openai_url}")
    assert describe_llm(OpenAILLM(model="gpt-4o", api_key="k")) == "OpenAI gpt-4o"


def test_common_options_reach_the_backend_also_when_detected():
    llm = resolve_llm("ollama:llama3.1", temperature=0.2, context_window=4096)
    assert (llm.temperature, llm.context_window, llm.num_ctx) == (0.2, 4096, 4096)
    with LoopbackServer(models=["qwen2.5:7b"]) as server:
        found = resolve_llm(base_url=server.ollama_url, temperature=0.7, context_window=2048)
        assert (found.model_name, found.temperature, found.num_ctx) == ("qwen2.5:7b", 0.7, 2048)


def test_a_spec_fills_only_the_fields_its_backend_has():
    extractive = resolve_llm("extractive", base_url="http://10.0.0.5:11434", api_key="k")
    assert isinstance(extractive, ExtractiveLLM)  # no server to point at: the URL is ignored
    with pytest.raises(ConfigError, match="takes no model"):
        resolve_llm("extractive:big")
    with pytest.raises(ConfigError, match="must start with http"):
        resolve_llm("ollama:llama3.1", base_url="10.0.0.5:11434")


# -- where a backend's server is: one rule (flag > environment > settings > default) ----------

SERVER_BACKENDS = [("ollama", "http://127.0.0.1:11434"), ("openai", "https://api.openai.com/v1")]


@pytest.mark.parametrize(("backend", "default"), SERVER_BACKENDS)
def test_server_url_takes_the_flag_then_the_environment_then_the_settings(monkeypatch, backend,
                                                                          default):
    flag, env, saved = "http://flag:1/v1", "http://env:2/v1", "http://saved:3/v1"
    assert resolve.server_url(backend) == default
    assert resolve.server_url(backend, saved=saved) == saved
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", env)
    assert resolve.server_url(backend, saved=saved) == env
    assert resolve.server_url(backend, flag=flag, saved=saved) == flag
    assert resolve.server_url("extractive", flag=flag) is None  # no server to point at


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.name)
def test_a_preset_address_saved_in_the_settings_yields_to_the_environment(monkeypatch, preset):
    assert resolve.server_url(preset.backend, saved=preset.url) == preset.url
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://10.0.0.9:9000/v1")
    assert resolve.server_url(preset.backend, saved=preset.url) == "http://10.0.0.9:9000/v1"


@pytest.mark.parametrize(("spec", "kind"), [("openai:gpt-4o-mini", OpenAILLM),
                                            ("ollama:llama3.1", OllamaLLM)])
def test_an_explicit_spec_goes_to_the_server_of_the_environment_not_the_default(monkeypatch,
                                                                                 spec, kind):
    """The drill: `--llm openai:MODEL` went to api.openai.com despite RAGCORE_LLM_BASE_URL."""
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://10.0.0.9:9000/v1")
    llm = resolve_llm(spec, saved_urls={"openai": "http://saved:1/v1", "ollama": "http://s:2"})
    assert isinstance(llm, kind) and llm.base_url == "http://10.0.0.9:9000/v1"
    monkeypatch.delenv("RAGCORE_LLM_BASE_URL")
    saved = resolve_llm(spec, saved_urls={"openai": "http://saved:1/v1", "ollama": "http://s:2"})
    assert saved.base_url == ("http://saved:1/v1" if kind is OpenAILLM else "http://s:2")
    assert resolve_llm(spec, base_url="http://flag:3").base_url == "http://flag:3"


def test_automatic_looks_for_ollama_where_the_environment_says(monkeypatch):
    with LoopbackServer(models=["qwen2.5:7b"]) as server:
        monkeypatch.setenv("RAGCORE_LLM_BASE_URL", server.ollama_url)
        llm = resolve_llm(saved_urls={"ollama": unused_url()})
        assert isinstance(llm, OllamaLLM) and llm.base_url == server.ollama_url


def test_the_cli_and_the_workspace_settings_follow_the_same_rule(monkeypatch, tmp_path):
    import argparse

    from ragcore.cli.context import CliContext
    from ragcore.cli.query_command import choose_llm
    from ragcore.workspace.backends import llm_from_settings
    from ragcore.workspace.settings import Settings

    context = CliContext(str(tmp_path / "ws"), None)
    settings = Settings(llm_backend="openai", llms={"openai": {"url": "http://saved:1/v1",
                                                               "model": "m"}})
    context.workspace().save_settings(settings)
    args = argparse.Namespace(llm="openai:gpt-4o-mini", base_url=None)
    assert choose_llm(args, context).base_url == "http://saved:1/v1"
    assert llm_from_settings(settings).base_url == "http://saved:1/v1"
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", "http://env:2/v1")
    assert choose_llm(args, context).base_url == "http://env:2/v1"
    assert llm_from_settings(settings).base_url == "http://env:2/v1"
    args.base_url = "http://flag:3/v1"
    assert choose_llm(args, context).base_url == "http://flag:3/v1"
