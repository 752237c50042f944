"""Summaries the packaged model writes in the background while the machine is idle.

With a language-model server the ingest job's summarise stage writes each file's summary
(``ingest.summary_stage``); the packaged model runs on the same CPU as everything else, so an
ingest does not wait for it. Instead, when nobody is using the machine (``machine_idle``: the
load average well under the cores, the model answering nobody), ``summarise_while_idle`` writes
the summary of one file the model has not summarised yet, part by part as a fresh summary is
written (``summary_reply.fresh_summary``), and looks again before each part: if the machine got
busy, it stops there (the parts written are dropped; the next idle moment starts the file
again). A summary written whole is kept, dated, and "summarise X" shows it at once beside the
document's abstract, said to be the model's and when it was written.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from ...summaries.parts import READ_NOTE
from ...trace import Trace
from ..summaries import open_summary_cache, unsummarized_files
from .summary_reply import fresh_summary

IDLE_LOAD = 0.5  # 1-minute load average per core under which the machine counts as idle


def machine_idle(llm: Any = None, *, load: Callable[[], float] = lambda: os.getloadavg()[0],
                 cores: int | None = None) -> bool:
    """Whether the machine is idle: its load well under its cores, and ``llm`` (a packaged
    model, whose engine counts its requests) answering nobody."""
    if load() >= IDLE_LOAD * (cores or os.cpu_count() or 1):
        return False
    engine = getattr(llm, "_engine", None)
    state = engine.queue_state() if engine is not None else None
    return state is None or not (state.running or state.waiting)


def summarise_while_idle(workspace: Any, name: str, llm: Any, *,
                         idle: Callable[[], bool]) -> str | None:
    """Write the summary of the first file of index ``name`` that ``llm`` has not summarised,
    while ``idle()`` holds before each part; the file's name when it was written whole, else
    None (none was missing, or the machine got busy)."""
    index, uid = workspace.load_index(name), workspace.record(name).uid
    cache = open_summary_cache(workspace.root)
    missing = unsummarized_files(cache, uid, index, llm)
    if not missing or not idle():
        return None
    trace, part = Trace(), 0
    chunks = fresh_summary(cache, uid, index, missing[0], llm, trace)
    try:
        for _ in chunks:
            now = trace.notes.get(READ_NOTE, {}).get("part", 0)
            if now != part:  # a part begins: the model reads it only if still idle
                part = now
                if now <= trace.notes[READ_NOTE]["parts"] and not idle():
                    return None
    finally:
        chunks.close()
    return missing[0]["file"]
