"""The app's background summaries: while the machine is idle, the packaged model writes the
summary of one file after another (``ragcore.workspace.conversation.idle_summaries``), so
"summarise X" later shows it at once, dated, beside the document's abstract.

One thread per app process, workspace and model, started from the sidebar every page draws;
it looks every ``POLL_SECONDS`` and writes only while nobody uses the machine (a person's
question makes it stop before its next part). Only the packaged model: a server model writes
summaries at ingest (``ingest.summary_stage``), and a test's scripted model writes none.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import streamlit as st

from ragcore.workspace import Workspace
from ragcore.workspace.conversation.idle_summaries import machine_idle, summarise_while_idle

POLL_SECONDS = 60.0
PACKAGED = "local:"  # the packaged model's name: "local:qwen2.5-coder-1.5b"
logger = logging.getLogger(__name__)


def keep_writing(root: Path, llm: Any) -> None:
    """Have the summaries written in the background for the workspace at ``root`` by ``llm``,
    if it is the packaged model (started once per process)."""
    model = str(getattr(llm, "model", "") or "")
    if llm is not None and model.startswith(PACKAGED):
        _writer(str(root), model, llm)


@st.cache_resource(show_spinner=False)
def _writer(root: str, model: str, _llm: Any) -> threading.Thread:
    thread = threading.Thread(target=_write, args=(Path(root), _llm), daemon=True,
                              name=f"ragcore-idle-summaries {model}")
    thread.start()
    return thread


def _write(root: Path, llm: Any) -> None:
    while True:
        time.sleep(POLL_SECONDS)
        if machine_idle(llm):
            _one_file(Workspace(root), llm)


def _one_file(ws: Workspace, llm: Any) -> None:
    """The next file without a summary, written if the machine stays idle."""
    for name in ws.index_names():
        try:
            written = summarise_while_idle(ws, name, llm, idle=lambda: machine_idle(llm))
        except Exception as exc:  # noqa: BLE001 - a background worker: the next idle moment retries
            logger.warning("background summary of index %s not written: %s", name, exc)
            continue
        if written:
            logger.info("background summary of %s (index %s) written", written, name)
            return
