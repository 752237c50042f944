"""Shared fixtures: the real corpus, a fake embedder, and the real packaged model (loaded once)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
# The packaged model's greedy replies must not vary with how busy the machine is while the suite
# runs: every core this process may use, as before threads were fitted to the load (the tests of
# the fitting give their engines a load of their own). Apps the tests start inherit it.
os.environ.setdefault("RAGCORE_LLM_THREADS", str(len(os.sched_getaffinity(0))
                                                 if hasattr(os, "sched_getaffinity")
                                                 else os.cpu_count() or 1))

REPO = Path(__file__).resolve().parents[1]

# The tests mirror the code (tests/ragcore/<package>/, tests/app, tests/browser, tests/drills...),
# and a test module may take another's fixtures by its name (``from test_browser import page``):
# every folder holding tests is on the path, so that works wherever both live. Test module
# names are unique across the folders (``test_layers`` checks it).
for _folder in sorted({p.parent for p in Path(__file__).parent.rglob("test_*.py")}):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

# Real database engines (Chroma server, Postgres + pgvector) as session fixtures.
pytest_plugins = ["support.engines"]

# Property tests check behaviour, not speed: on a loaded 2-core CI machine an example may take
# longer than hypothesis's default 200 ms deadline, which must not fail the run.
settings.register_profile(
    "ragcore", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("ragcore")


def _corpus_dir() -> Path:
    override = os.environ.get("RAGCORE_CORPUS")
    if override:
        return Path(override)
    return REPO.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    path = _corpus_dir()
    if not path.is_dir():
        pytest.fail(f"corpus not found at {path}: set RAGCORE_CORPUS to the shared/corpus folder")
    return path


@pytest.fixture(autouse=True)
def _no_packaged_model_unless_asked(request):
    """Auto-detection ends at extractive answers, as before the packaged model, unless a test
    is marked ``local_llm``: thousands of tests ask "auto" and expect the quoted answers, and
    loading a 1.1 GB model into each would take the suite hours. Its own MonkeyPatch, not the
    test's: an autouse ``monkeypatch`` is set up before every other fixture and undone after
    them, so a test's ``monkeypatch.delenv`` of a variable a fixture set came back after the
    fixture had removed it (RAGCORE_DATABASE_URL of a dropped database, failing later tests)."""
    if request.node.get_closest_marker("local_llm"):
        yield
        return
    from ragcore.llms import resolve
    from ragcore.llms.registry import build_llm

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(resolve, "_packaged_model",
                      lambda options: build_llm("extractive", None, options))
        yield


@pytest.fixture
def fake_embedder():
    from ragcore.embeddings.fake import FakeEmbedder

    return FakeEmbedder()


@pytest.fixture(scope="session")
def real_embedder():
    """The packaged all-MiniLM-L6-v2, loaded once for the whole test session."""
    from ragcore.embeddings import default_embedder

    return default_embedder()
