"""Settings: validated, round-tripped through settings.json, API key kept out unless asked."""

from __future__ import annotations

import json
import stat

import pytest

from ragcore.errors import ConfigError
from ragcore.workspace.backends import embedding_choice, same_embedding
from ragcore.workspace.settings import Settings, load_settings, parse_settings, save_settings


def openai_settings(**extra) -> Settings:
    return Settings(llm_backend="openai", llms={"openai": {
        "url": "http://127.0.0.1:8000/v1/", "model": "gpt-4o-mini", "api_key": "sk-secret"}},
        **extra)


def test_defaults_work_offline_with_no_file(tmp_path):
    settings = load_settings(tmp_path / "settings.json")
    assert settings == Settings()
    assert settings.llm_spec() is None  # auto: Ollama if running, else extractive
    assert settings.embedding_backend == "packaged"
    assert settings.embedding_description() == "Packaged all-MiniLM-L6-v2"


def test_round_trip_keeps_every_field_but_the_api_key(tmp_path):
    path = tmp_path / "settings.json"
    settings = openai_settings(temperature=0.5, context_window=8192, chunk_size=256,
                               chunk_overlap=32)
    save_settings(path, settings)
    assert "sk-secret" not in path.read_text()
    loaded = load_settings(path)
    assert loaded.llm_settings().api_key is None and loaded.secrets() == {}
    assert loaded == settings.without_secrets()
    assert loaded.llm_settings().url == "http://127.0.0.1:8000/v1"  # trailing slash removed
    assert loaded.llm_spec() == "openai:gpt-4o-mini"


def test_api_key_saved_only_when_asked_and_then_private(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(path, openai_settings(save_api_key=True))
    assert json.loads(path.read_text())["llms"]["openai"]["api_key"] == "sk-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_settings(path).api_key() == "sk-secret"


def test_secrets_never_show_in_repr_or_json():
    settings = openai_settings()
    assert "sk-secret" not in repr(settings)
    assert "sk-secret" not in settings.model_dump_json()
    dumped = json.loads(settings.model_dump_json())
    assert dumped["llms"]["openai"] == {"url": "http://127.0.0.1:8000/v1", "model": "gpt-4o-mini",
                                        "num_output": 512, "request_timeout": 600.0}
    # (no masked '**********' either: reading the JSON back must not make that the key)


def test_session_secrets_come_back_only_where_none_is_set():
    settings = openai_settings()
    bare = settings.without_secrets()
    assert bare.secrets() == {}
    assert bare.with_secrets(settings.secrets()) == settings
    kept = settings.with_secrets({"llms.openai.api_key": "sk-other"})
    assert kept.api_key() == "sk-secret"


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"llm_backend": "gpt"}, "llm_backend: Value error, unknown LLM backend 'gpt': choose "
                                 "one of auto, local, extractive, ollama, openai"),
        ({"embedding_backend": "word2vec"}, "unknown embedding backend 'word2vec'"),
        ({"temperature": 5}, "temperature"),
        ({"llms": {"ollama": {"url": "localhost:11434"}}}, "http://"),
        ({"llms": {"ollama": {"modle": "llama3"}}}, "modle"),
        ({"ollama_url": "localhost:11434"}, "http://"),  # an old flat field, checked the same
        ({"chunk_size": 100, "chunk_overlap": 100}, "chunk_overlap (100) must be smaller"),
        ({"unknown_option": 1}, "unknown_option"),
        ({"embedding_kind": "cloud"}, "embedding_kind 'cloud'"),
    ],
)
def test_bad_values_name_the_field(data, fragment):
    with pytest.raises(ConfigError, match="invalid settings") as info:
        parse_settings(data)
    assert fragment in str(info.value)


def test_damaged_file_names_the_file(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    with pytest.raises(Exception, match="settings.json"):
        load_settings(path)


def test_incomplete_backend_choice_is_explained():
    with pytest.raises(ConfigError, match=r"OpenAI-compatible server needs a model "
                                          r"\(llms.openai.model\)"):
        Settings(llm_backend="openai").check_complete()
    with pytest.raises(ConfigError, match=r"needs a model folder \(embedders.local.path\)"):
        Settings(embedding_backend="local").check_complete()
    Settings(embedding_backend="local").check_complete(embedder=False)
    # Ollama without a model uses the server's first chat model, as 'ollama' does in the CLI
    Settings(llm_backend="ollama").check_complete()
    named = Settings(llm_backend="ollama", llms={"ollama": {"model": "llama3.1"}})
    assert named.llm_description() == "ollama:llama3.1 at http://127.0.0.1:11434"


def test_a_settings_file_of_the_flat_format_still_loads(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({
        "llm_backend": "openai", "ollama_url": "http://10.0.0.2:11434", "ollama_model": "",
        "openai_base_url": "http://127.0.0.1:8000/v1", "openai_model": "qwen",
        "openai_api_key": "sk-saved", "save_api_key": True, "temperature": 0.3,
        "context_window": None, "embedding_kind": "server", "embedding_path": "",
        "embedding_server": "openai", "embedding_url": "http://127.0.0.1:8000/v1",
        "embedding_model": "bge-small", "chunk_size": None, "chunk_overlap": None,
        "workspace": None,
    }))
    settings = load_settings(path)
    assert settings.llm_spec() == "openai:qwen" and settings.api_key() == "sk-saved"
    assert settings.llm_settings("ollama").url == "http://10.0.0.2:11434"
    assert settings.embedding_backend == "openai"
    embedder = settings.embedder_settings()
    assert (embedder.url, embedder.model) == ("http://127.0.0.1:8000/v1", "bge-small")
    assert embedder.api_key.get_secret_value() == "sk-saved"  # one key served both before
    save_settings(path, settings)
    assert load_settings(path) == settings  # and is written back in today's shape
    assert "openai_model" not in path.read_text()


@pytest.mark.parametrize("old, backend, values", [
    ({"embedding_kind": "packaged", "embedding_path": "", "embedding_server": "ollama",
      "embedding_url": "http://127.0.0.1:11434", "embedding_model": ""}, "packaged", {}),
    ({"embedding_kind": "local", "embedding_path": "/models/e5", "embedding_server": "ollama",
      "embedding_url": "http://127.0.0.1:11434", "embedding_model": ""}, "local",
     {"path": "/models/e5"}),
    ({"embedding_kind": "server", "embedding_path": "", "embedding_server": "ollama",
      "embedding_url": "http://10.0.0.2:11434", "embedding_model": "nomic-embed-text"}, "ollama",
     {"url": "http://10.0.0.2:11434", "model": "nomic-embed-text"}),
])
def test_an_index_record_of_the_flat_format_names_the_same_embedder(old, backend, values):
    """Index records keep the choice they were made with; old ones must still be read."""
    settings = Settings(**old)
    assert embedding_choice(settings) == {"embedding_backend": backend,
                                          "embedders": {backend: values}}
    assert same_embedding(old, settings) and same_embedding(embedding_choice(settings), settings)
    assert not same_embedding(old, Settings(embedding_backend="local",
                                            embedders={"local": {"path": "/elsewhere"}}))


def test_the_stored_embedding_choice_holds_no_secret():
    settings = Settings(embedding_backend="openai", embedders={"openai": {
        "model": "text-embedding-3-small", "api_key": "sk-secret"}})
    choice = embedding_choice(settings)
    assert choice == {"embedding_backend": "openai", "embedders": {"openai": {
        "url": "https://api.openai.com/v1", "model": "text-embedding-3-small"}}}  # no key at all
    assert Settings(**choice).embedder_settings().model == "text-embedding-3-small"


def test_settings_of_a_backend_not_registered_here_are_kept(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"llms": {"plugin": {"url": "http://x", "depth": 3}}}))
    settings = load_settings(path)
    save_settings(path, settings)
    assert json.loads(path.read_text())["llms"]["plugin"] == {"url": "http://x", "depth": 3}
