"""A backend registered from outside appears in resolve_llm, the CLI and the app, unchanged.

The "echo" LLM backend and the "hashing" embedding backend below are written here, in the test
suite, the way a plugin would write them: one settings model, one factory, one register call.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field
from streamlit.testing.v1 import AppTest

from ragcore.backend import Backend
from ragcore.cli import main
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.embeddings.registry import embedding_backends, register_embedding_backend
from ragcore.errors import ConfigError
from ragcore.llms import complete
from ragcore.llms.fake import FakeLLM
from ragcore.llms.registry import describe_llm, llm_backends, register_llm_backend
from ragcore.llms.resolve import resolve_llm
from ragcore.types import Message
from ragcore.workspace.backends import embedder_from_settings, llm_from_settings
from ragcore.workspace.settings import Settings, parse_settings

APP = str(Path(__file__).resolve().parents[3] / "app.py")


class EchoSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field("", title="Model")
    prefix: str = Field("echo", title="Reply prefix", description="Put before every reply.")
    loud: bool = Field(False, title="Shout")


built: list[FakeLLM] = []  # every echo LLM the factory made, so a test can see its prompts


def build_echo(settings: EchoSettings, options) -> FakeLLM:
    def reply(messages: list[Message]) -> str:
        text = f"{settings.prefix} ({settings.model}, temperature {options.temperature})"
        return text.upper() if settings.loud else text

    llm = FakeLLM(default=reply, model=f"echo:{settings.model}")
    built.append(llm)
    return llm


ECHO = Backend(
    name="echo", label="Echo (test)", description="Answers with its own settings; for tests.",
    settings=EchoSettings, build=build_echo, required=("model",),
    test_connection=lambda s: f"Echo is always ready (prefix {s.prefix!r}).",
)


class HashingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dim: int = Field(64, title="Dimensions", ge=1)


HASHING = Backend(
    name="hashing", label="Hashing (test)", description="Hashed words; no model.",
    settings=HashingSettings, build=lambda s: FakeEmbedder(dim=s.dim, model_name=f"hash-{s.dim}"),
)


@pytest.fixture
def echo():
    register_llm_backend(ECHO)
    register_embedding_backend(HASHING)
    built.clear()
    yield ECHO
    llm_backends.unregister("echo")
    embedding_backends.unregister("hashing")


def test_listing_the_backends_loads_no_backend():
    code = (
        "import sys; from ragcore.llms.resolve import spec_forms; "
        "import ragcore.embeddings.registry, ragcore.workspace.settings; spec_forms(); "
        "print([m for m in ('httpx', 'torch', 'sentence_transformers') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_resolve_llm_builds_a_registered_backend(echo):
    llm = resolve_llm("echo:m", temperature=0.4)
    assert llm is built[-1] and llm.model == "echo:m"
    assert complete(llm, [Message("user", "hi")]) == "echo (m, temperature 0.4)"
    assert describe_llm(llm) == "Echo (test) m"
    with pytest.raises(ConfigError, match="'echo:MODEL'"):
        resolve_llm("echo")  # its settings require a model


def test_an_unregistered_backend_is_gone_everywhere(echo):
    llm_backends.unregister("echo")
    with pytest.raises(ConfigError, match="unknown LLM 'echo:m'"):
        resolve_llm("echo:m")
    with pytest.raises(ConfigError, match="unknown LLM backend 'echo'"):
        parse_settings({"llm_backend": "echo"})


def test_workspace_settings_build_registered_backends(echo):
    settings = Settings(llm_backend="echo", llms={"echo": {"model": "m2", "loud": True}},
                        temperature=0.2, embedding_backend="hashing",
                        embedders={"hashing": {"dim": 16}})
    assert complete(llm_from_settings(settings), [Message("user", "hi")]) == (
        "ECHO (M2, TEMPERATURE 0.2)")
    embedder = embedder_from_settings(settings)
    assert embedder.model_name == "hash-16" and embedder.embed_batch(["a b"]).shape == (1, 16)
    with pytest.raises(ConfigError, match=r"Echo \(test\) needs a model \(llms.echo.model\)"):
        parse_settings({"llm_backend": "echo"}).check_complete()


def test_auto_settings_take_ragcore_llm_with_their_temperature(echo, monkeypatch):
    monkeypatch.setenv("RAGCORE_LLM", "echo:from-env")
    llm = llm_from_settings(Settings(temperature=0.3))
    assert complete(llm, [Message("user", "hi")]) == "echo (from-env, temperature 0.3)"


@pytest.fixture
def cli(tmp_path, fake_embedder, capsys, monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "garden.md").write_text("# Garden\n\nTomatoes need sun, water and patience.")
    workspace = ["--workspace", str(tmp_path / "ws")]
    assert main([*workspace, "ingest", str(docs), "--index", "notes"], embedder=fake_embedder) == 0
    capsys.readouterr()

    def run(*argv: str) -> tuple[int, str, str]:
        code = main([*workspace, *argv], embedder=fake_embedder)
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_the_cli_lists_it_and_answers_through_it(echo, cli, capsys):
    with pytest.raises(SystemExit):
        main(["query", "--help"])
    assert "openai:MODEL | echo:MODEL" in " ".join(capsys.readouterr().out.split())
    code, out, err = cli("query", "What do tomatoes need?", "--index", "notes",
                         "--llm", "echo:whatever")
    assert code == 0, err
    assert "Answering with Echo (test) whatever" in err
    # the echo is no answer the passages state: the CLI shows the grounding verdict instead
    assert out.startswith("The documents don't say what tomatoes need.")
    assert "What do tomatoes need?" in built[-1].calls[0][-1].content  # the prompt reached it
    code, _, err = cli("chat", "--index", "notes", "--llm", "nonsense:x")
    assert code == 1 and "'echo:MODEL'" in err  # the accepted forms, from the registry


def open_settings(monkeypatch, root: Path) -> AppTest:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    root.mkdir(parents=True, exist_ok=True)  # the embedding model's choice is under Advanced
    (root / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/settings.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def click(at: AppTest, label: str) -> None:
    next(b for b in at.button if b.label == label).click().run()


def test_the_settings_page_offers_it_with_its_own_fields(echo, monkeypatch, tmp_path):
    at = open_settings(monkeypatch, tmp_path / "ws")
    assert "Echo (test)" in at.radio[0].options and "Hashing (test)" in at.radio[1].options
    at.radio[0].set_value("echo").run()
    at.text_input(key="llms.echo.prefix").set_value("hey").run()
    at.checkbox(key="llms.echo.loud").check().run()
    click(at, "Test connection")
    assert at.success[0].value == "Echo is always ready (prefix 'hey')."
    click(at, "Save settings")
    assert "needs a model" in at.error[0].value  # required fields are checked before saving
    at.text_input(key="llms.echo.model").set_value("m1").run()
    at.radio[1].set_value("hashing").run()
    at.number_input(key="embedders.hashing.dim").set_value(24).run()
    click(at, "Save settings")
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.success[-1].value == "Saved. Answering: Echo (test) m1."
    saved = json.loads((tmp_path / "ws" / "settings.json").read_text())
    assert saved["llm_backend"] == "echo" and saved["embedding_backend"] == "hashing"
    assert saved["llms"]["echo"] == {"model": "m1", "prefix": "hey", "loud": True}
    assert saved["embedders"]["hashing"] == {"dim": 24}


def test_the_settings_page_offers_only_registered_backends(monkeypatch, tmp_path):
    at = open_settings(monkeypatch, tmp_path / "ws")
    assert at.radio[0].options == ["Automatic", "The built-in model (this computer)",
                                   "Extractive (offline)", "Ollama", "OpenAI-compatible server"]
    assert at.radio[1].options == ["Packaged all-MiniLM-L6-v2", "Local model folder", "Ollama",
                                   "OpenAI-compatible server"]


def test_a_connection_test_fills_the_model_picker(monkeypatch, tmp_path):
    from support.loopback import LoopbackServer

    with LoopbackServer(api_key="sk-test") as server:
        at = open_settings(monkeypatch, tmp_path / "ws")
        at.radio[0].set_value("openai").run()
        at.text_input(key="llms.openai.url").set_value(server.openai_url).run()
        at.text_input(key="llms.openai.api_key").set_value("sk-test").run()
        assert "llms.openai.model.pick" not in [box.key for box in at.selectbox]  # a text box yet
        click(at, "Test connection")
        assert at.success[0].value.startswith(f"Connected to {server.openai_url}: 4 models")
        picker = at.selectbox(key="llms.openai.model.pick")
        assert picker.options == list(server.models)
        picker.set_value("gpt-4o-mini").run()
        click(at, "Save settings")
        assert at.success[-1].value == (
            f"Saved. Answering: OpenAI-compatible gpt-4o-mini at {server.openai_url}.")
