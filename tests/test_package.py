"""The package's promises: a light import, and a public API that resolves."""

from __future__ import annotations

import subprocess
import sys

import ragcore

HEAVY = ["torch", "sentence_transformers", "tiktoken", "pypdf", "docx", "bs4", "transformers",
         "streamlit"]


def test_import_does_not_load_heavy_dependencies():
    code = (
        "import sys, ragcore, ragcore.index, ragcore.query, ragcore.chat, ragcore.readers;"
        "from ragcore.workspace import Workspace; import ragcore.cli;"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported eagerly: {out.stdout.strip()}"


def test_every_public_name_resolves():
    missing = [name for name in ragcore.__all__ if not hasattr(ragcore, name)]
    assert missing == []


def test_unknown_name_raises_attribute_error():
    try:
        ragcore.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
