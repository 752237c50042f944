"""Settings: validated, round-tripped through settings.json, API key kept out unless asked."""

from __future__ import annotations

import json
import stat

import pytest

from ragcore.errors import ConfigError
from ragcore.workspace.settings import Settings, load_settings, parse_settings, save_settings


def test_defaults_work_offline_with_no_file(tmp_path):
    settings = load_settings(tmp_path / "settings.json")
    assert settings == Settings()
    assert settings.llm_spec() is None  # auto: Ollama if running, else extractive
    assert settings.embedding_kind == "packaged"


def test_round_trip_keeps_every_field_but_the_api_key(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings(
        llm_backend="openai", openai_model="gpt-4o-mini", openai_base_url="http://127.0.0.1:8000/v1/",
        openai_api_key="sk-secret", temperature=0.5, context_window=8192, chunk_size=256,
        chunk_overlap=32,
    )
    save_settings(path, settings)
    assert "sk-secret" not in path.read_text()
    loaded = load_settings(path)
    assert loaded.openai_api_key is None
    assert loaded.model_dump(exclude={"openai_api_key"}) == settings.model_dump(
        exclude={"openai_api_key"})
    assert loaded.openai_base_url == "http://127.0.0.1:8000/v1"  # trailing slash removed
    assert loaded.llm_spec() == "openai:gpt-4o-mini"


def test_api_key_saved_only_when_asked_and_then_private(tmp_path):
    path = tmp_path / "settings.json"
    save_settings(path, Settings(openai_api_key="sk-secret", save_api_key=True))
    assert json.loads(path.read_text())["openai_api_key"] == "sk-secret"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_settings(path).api_key() == "sk-secret"


def test_the_key_never_shows_in_repr():
    assert "sk-secret" not in repr(Settings(openai_api_key="sk-secret"))


@pytest.mark.parametrize(
    "data, fragment",
    [
        ({"llm_backend": "gpt"}, "llm_backend"),
        ({"temperature": 5}, "temperature"),
        ({"ollama_url": "localhost:11434"}, "http://"),
        ({"chunk_size": 100, "chunk_overlap": 100}, "chunk_overlap (100) must be smaller"),
        ({"unknown_option": 1}, "unknown_option"),
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
    with pytest.raises(ConfigError, match="Ollama model"):
        Settings(llm_backend="ollama").check_complete()
    Settings(llm_backend="ollama", ollama_model="llama3.1").check_complete()
    assert "ollama:llama3.1 at http://127.0.0.1:11434" == Settings(
        llm_backend="ollama", ollama_model="llama3.1").llm_description()
