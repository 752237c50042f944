"""The seeds' code examples, run against ragcore with only their import lines changed.

Each test module holds one example from ``../shared/seeds`` (or the LlamaIndex quick-start and
its most documented snippets) exactly as written there, its ``llama_index...`` imports pointed
at ``ragcore.compat``. Where an example needs something this offline machine cannot have (a
model to download, a remote server), the one changed line says so in a comment.

Fixtures: ``in_data_folder`` makes a working folder with a ``data/`` subfolder of real corpus
files and moves into it (the examples use relative paths); every test gets ragcore's offline
defaults (``RAGCORE_LLM=extractive``, fresh ``Settings``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

# What the examples read: a short speech (like the seeds' 75 kB essay) and a PEP.
DATA_FILES = ("state_of_the_union/state_of_the_union.txt", "python_peps/pep-0020.rst")


@pytest.fixture(autouse=True)
def offline_defaults(monkeypatch):
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.delenv("OLLAMA_HOST", raising=False)
    from ragcore.compat.settings import Settings

    Settings.reset()
    yield
    Settings.reset()


@pytest.fixture
def in_data_folder(tmp_path, corpus_dir, monkeypatch) -> Path:
    """``tmp_path`` holding ``data/`` with real corpus files, as the working folder."""
    data = tmp_path / "data"
    data.mkdir()
    for name in DATA_FILES:
        shutil.copy(corpus_dir / name, data / Path(name).name)
    monkeypatch.chdir(tmp_path)
    return data
