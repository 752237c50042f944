"""``ragcore serve`` with the packaged model, as a person runs it: a warm process in the
background, ``ragcore query`` processes answered by it without loading, then ``--stop``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragcore.llms import local_models

pytestmark = [pytest.mark.slow, pytest.mark.local_llm, pytest.mark.timeout(900),
              pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                                 reason="the packaged model is installed by `make install`")]

REPO = Path(__file__).resolve().parents[3]
RAGCORE = [sys.executable, "-c", "import sys; from ragcore.cli import main; sys.exit(main())"]


def ragcore(*argv: str, workspace: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("RAGCORE_LLM", "RAGCORE_EMBEDDER")}
    return subprocess.run([*RAGCORE, *argv, "--workspace", str(workspace)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_query_is_answered_by_the_warm_process_without_loading(tmp_path):
    docs, workspace = tmp_path / "docs", tmp_path / "ws"
    docs.mkdir()
    (docs / "tax.txt").write_text(
        "The President proposed a 15% minimum tax rate for corporations. "
        "Insulin would be capped at 35 dollars a month.", encoding="utf-8")
    assert ragcore("ingest", str(docs), workspace=workspace).returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("RAGCORE_LLM", "RAGCORE_EMBEDDER")}
    server = subprocess.Popen([*RAGCORE, "serve", "--workspace", str(workspace)], cwd=REPO,
                              env=env, stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        for line in server.stderr:
            said += line
            if line.startswith("Warm:"):
                break
        assert "qwen" in said.lower(), said  # the packaged model, loaded before any question
        started = time.perf_counter()
        done = ragcore("query", "What minimum tax rate for corporations was proposed?",
                       workspace=workspace)
        seconds = time.perf_counter() - started
        assert done.returncode == 0, done.stderr
        assert f"(pid {server.pid})" in done.stderr and "Loaded in " not in done.stderr
        assert "15%" in done.stdout.partition("Sources:")[0]
        assert seconds < 120, seconds
    finally:
        stopped = ragcore("serve", "--stop", workspace=workspace)
        server.wait(timeout=120)
    assert stopped.returncode == 0 and server.returncode == 0
    assert not (workspace / "serve.sock").exists()
