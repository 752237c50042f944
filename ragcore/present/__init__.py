"""How ragcore words things for people, shared by the CLI and the app (no Streamlit here).

    format.py      backend and source labels, sizes, ingest tables, safe Markdown, dates
    quotes.py      where an answer quotes a passage word for word (and sentence spans)
    support.py     what an answer used of each passage: quotes, or sentences supporting it
    sources.py     which sources are listed: a relevance floor per retrieval mode
    citations.py   a source passage in its surrounding text, the parts the answer used marked
    explain.py     errors in plain words, with the next step a user can take
    trace_view.py  a trace as table rows and reasoning, live or from a saved chat
    how_made.py    a response mode's calls by their part: drafts, levels, per-passage answers
    corpus_map.py  pictures of an index: token lengths, document sizes, a 2-D embedding map
    leaderboard.py an evaluation's leaderboard table, its bar chart with intervals, drill-down
    passage/       a passage as people read it: Markdown and reST rendered, PDF lines
                   reflowed, cited parts marked, its boxes on the PDF page

Pure functions over ragcore objects, tested like the rest of the library. The Streamlit side
(session state, cached objects, the page frame) is the ``webapp`` package beside ``app.py``;
nothing here imports it or Streamlit. The names the app and the CLI use are exported here and
imported on first use, so importing one light module does not pull in the others.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

_EXPORTS: dict[str, str] = {
    "ranked_with": ".answer_score",
    "score_note": ".answer_score",
    "stated_score": ".answer_score",
    "Segment": ".citations",
    "passage_segments": ".citations",
    "legend_colours": ".corpus_map",
    "picture_corpus": ".corpus_map",
    "copied_text": ".format",
    "friendly_date": ".format",
    "literal_markdown": ".format",
    "parse_iso": ".format",
    "explain_error": ".explain",
    "describe_backend": ".format",
    "chart_spec": ".leaderboard",
    "export_name": ".leaderboard",
    "in_board_order": ".leaderboard",
    "leaderboard_rows": ".leaderboard",
    "metric_label": ".leaderboard",
    "metric_line": ".leaderboard",
    "question_choices": ".leaderboard",
    "mark_listing": ".markers",
    "unobserved": ".grounded",
    "unread": ".grounded",
    "UNSUPPORTED_MARK": ".grounded",
    "outside_fence": "ragcore.readers.markdown.fences",
    "passage_section": ".passage.section",
    "markup_of": ".passage.markup",
    "render_segments": ".passage.markup",
    "focus_window": ".passage.page_boxes",
    "highlight_rects": ".passage.page_boxes",
    "reflow_segments": ".passage.reflow",
    "reflows": ".passage.reflow",
    "ListedSource": ".sources",
    "SourceListing": ".sources",
    "answer_citations": ".sources",
    "list_sources": ".sources",
    "support_embedder": ".sources",
    "uses_passages": ".sources",
    "listing_strengths": ".strength",
    "NO_SUPPORT": ".support",
    "Citations": ".support",
    "cite": ".support",
    "trace_dict": ".trace_view",
    "work_metrics": ".trace_view",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
