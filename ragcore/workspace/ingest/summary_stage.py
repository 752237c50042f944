"""The summarise stage of an ingest job: each file's summary written as soon as it is indexed.

LlamaIndex's DocumentSummaryIndex computes a summary per document at ingest. Here, when the
workspace's settings name a language-model server (Ollama, an OpenAI-compatible server), an
ingest or re-index job ends with this stage: every file of the index without a summary by that
model of its current content is summarised (``summaries.summarize_file``, cached under the
file's content hashes), so the Summarise actions, the chat's summary route and retrieval by
summary (``summaries.cached_document_summaries`` into a ``DocumentSummaryIndex``) find it made.
Files summarised before with the same content are skipped.

The job shows "summarising n/N" and asks its cancel check between files. A failure of the model
ends the stage and is reported in the job's outcome; the ingest itself stays done (the missing
summaries are made when asked for). Offline (no model configured, or 'auto', which would look
for a server on every ingest) the stage does nothing: extractive summaries stay on demand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ...errors import RagcoreError
from ...llms.base import LLM
from ...summaries.index import is_offline
from ..backends import llm_from_settings
from ..settings import AUTO, Settings
from ..summaries import (PgSummaryCache, SummaryCache, method_of, open_summary_cache,
                         summarize_file, unsummarized_files)
from ...present.format import counted

if TYPE_CHECKING:
    from ..workspace import Workspace

logger = logging.getLogger(__name__)

_OFFLINE_BACKENDS = (AUTO, "extractive")


@dataclass(frozen=True, slots=True)
class StageOutcome:
    """How the stage went: a note for the job's one-line outcome, and whether it was cancelled."""

    note: str = ""  # "" when there was nothing to do
    cancelled: bool = False


def summary_model(settings: Settings) -> LLM | None:
    """The language model the settings name for summaries at ingest; None offline."""
    if settings.llm_backend in _OFFLINE_BACKENDS:
        return None
    llm = llm_from_settings(settings)
    return None if is_offline(llm) else llm


def summary_cache(ws: Workspace) -> SummaryCache | PgSummaryCache:
    return open_summary_cache(ws.root)


def summarise_new_files(ws: Workspace, index_name: str, *, cancel: Callable[[], bool],
                        progress: Callable[[int, int], None]) -> StageOutcome:
    """Summarise the files of ``index_name`` that have no summary by the configured model.

    ``progress(done, total)`` is called before each file and at the end."""
    try:
        llm = summary_model(ws.settings)
        if llm is None:
            return StageOutcome()
        index, uid, cache = ws.load_index(index_name), ws.record(index_name).uid, summary_cache(ws)
        todo = unsummarized_files(cache, uid, index, llm)
    except RagcoreError as exc:
        return _failed(index_name, exc, 0, 0)
    for done, row in enumerate(todo):
        if cancel():
            return StageOutcome(f"; summarising cancelled after {done} of "
                                f"{counted(len(todo), 'file')}",
                                cancelled=True)
        progress(done, len(todo))
        try:
            summarize_file(cache, uid, index, row["id_base"], llm=llm)
        except RagcoreError as exc:
            return _failed(index_name, exc, done, len(todo))
    progress(len(todo), len(todo))
    if not todo:
        return StageOutcome()
    return StageOutcome(f"; {counted(len(todo), 'file')} summarised by {method_of(llm)}")


def _failed(index_name: str, exc: RagcoreError, done: int, total: int) -> StageOutcome:
    logger.warning("summaries of index %s not made: %s", index_name, exc)
    made = f" ({done} of {total} made)" if done else ""
    return StageOutcome(f"; summaries not made{made}: {exc} (they are made when asked for)")
