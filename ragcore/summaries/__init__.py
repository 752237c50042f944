"""Summaries: of a document from its chunks (``summarize``, extractive, with the embedding
model), the summary index and per-document summaries (``index``), the router that tells a
request for a summary from a search (``router``), what ingest keeps that answers one at once
(``kept``: the document's own abstract) and a fresh one by the model, part by part (``parts``).
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

_EXPORTS = {
    "SummaryIndex": ".index",
    "DocumentSummaryIndex": ".index",
    "DocumentSummary": ".index",
    "summarize_document": ".index",
    "summarize_nodes": ".index",
    "summarize_extractive": ".summarize",
    "ExtractiveSummary": ".summarize",
    "route_question": ".router",
    "Route": ".router",
    "SUMMARY": ".router",
    "INDEX_SUMMARY": ".router",
    "RETRIEVAL": ".router",
    "READ_NOTE": ".parts",
    "reading_line": ".parts",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
