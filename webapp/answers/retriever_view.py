"""The advanced retrievers on the Query page: the "Retriever" choice, what their traces say,
and the side-by-side comparison of retrievers (rendering; the retrievers are
``ragcore.engines.by_name``).

Only the retrievers that can run are offered; the others are listed under the choice with the
reason (no language model for those that need one to write text, no cross-encoder folder).
"""

from __future__ import annotations

import os
from typing import Any

import streamlit as st

from ragcore.present import format as fmt
from ragcore.present import score_note, stated_score, trace_dict, work_metrics
from ragcore.engines import CHOICES, RetrieverResult, unavailable_reason
from webapp.session import Widget, session
from webapp.shell import in_columns

CROSS_ENV = "RAGCORE_CROSS_ENCODER"
TOP_K_HELP = ("How many passages the answer reads and cites. The built-in model reads a budget "
              "of sentences: for a fact it picks them among at least 12 passages retrieved, "
              "from this many. The sources may list a few more than this: a document's own "
              "card (its title, authors, date) for a question about the document, the passage "
              "spelling out an acronym asked about, or the neighbouring passages a "
              "postprocessor adds.")
NO_TEXT = "_(no answer text)_"


def offered(llm: Any, cross_encoder: str, *, answers: bool = True
            ) -> tuple[list[str], dict[str, list[str]]]:
    """The retrievers that can run, and the others grouped by the reason they cannot
    (``answers=False``: only retrievers, not the router and sub-questions, which answer)."""
    names: list[str] = []
    blocked: dict[str, list[str]] = {}
    for name, choice in CHOICES.items():
        if choice.answers and not answers:
            continue
        reason = unavailable_reason(name, llm=llm, cross_encoder=cross_encoder)
        if reason is None:
            names.append(name)
        else:
            blocked.setdefault(reason, []).append(choice.label)
    return names, blocked


def retriever_select(llm: Any, *, page: str = "query", answers: bool = True) -> dict[str, str]:
    """The sidebar's "Retriever" choice and its cross-encoder folder, as QueryOptions fields
    (``page`` keeps each page's widgets apart; the Chat page offers retrievers only)."""
    key, cross_key = Widget.retriever(page), Widget.cross_encoder(page)
    if not session.has_widget(cross_key):
        session.preset(cross_key, os.environ.get(CROSS_ENV, ""))
    names, blocked = offered(llm, session.widget(cross_key).strip(), answers=answers)
    if session.widget(key) not in names:
        session.preset(key, "standard")
    name = st.selectbox(
        "Retriever", names, key=key, format_func=lambda n: CHOICES[n].label,
        help="\n\n".join(f"**{CHOICES[n].label}**: {CHOICES[n].explanation}" for n in names),
    )
    st.caption(CHOICES[name].explanation)
    for reason, labels in blocked.items():
        st.caption(f"Not available now: {', '.join(labels)}: {reason}.")
    folder = st.text_input(
        "Cross-encoder folder (optional)", key=cross_key,
        help="A sentence-transformers cross-encoder saved on this machine (e.g. a downloaded "
             "ms-marco-MiniLM-L-6-v2 folder); it enables Cross-encoder rerank.")
    return {"retriever": name, "cross_encoder": folder.strip()}


def retrieval_notes(trace: Any) -> list[tuple[str, Any]]:
    """What the advanced retrievers left in a trace, as (heading, value) pairs to show."""
    notes = trace_dict(trace).get("notes", {})
    shown = []
    for key, heading in (
        ("fusion_queries", "Queries searched (query fusion)"),
        ("query_fusion", "Query fusion"),
        ("hyde_passage", "Imagined answer that was searched (HyDE)"),
        ("hyde", "HyDE"),
        ("rerank", "Reranking: relevance given to each candidate passage"),
        ("sources", "Documents considered"),
        ("route", "Router's choice"),
        ("sub_question_plan", "Sub-questions"),
        ("sub_questions", "Sub-questions asked"),
    ):
        if notes.get(key):
            shown.append((heading, notes[key]))
    return shown


def render_notes(trace: Any) -> None:
    for heading, value in retrieval_notes(trace):
        st.markdown(f"**{heading}**")
        if isinstance(value, list) and value and isinstance(value[0], dict):
            st.dataframe(value, hide_index=True, width="stretch")
        elif isinstance(value, list):
            st.markdown("\n".join(f"- {item}" for item in value))
        elif isinstance(value, dict):
            st.markdown("\n".join(f"- **{k}**: {v}" for k, v in value.items()))
        else:
            st.caption(str(value))


def passage_line(scored: Any) -> str:
    """One retrieved passage as a line: score, file, the start of its text as plain text (its
    Markdown's marks dropped, the rest shown as written)."""
    node = scored.node
    source = node.metadata.get("file_name") or node.ref_doc_id or "passage"
    score = "–" if scored.score is None else f"{scored.score:.3f}"
    return (f"`{score}` **{fmt.literal_markdown(str(source))}**: "
            f"{fmt.literal_markdown(fmt.passage_excerpt(node.text, 220))}")


def _work_columns(trace: Any) -> dict[str, int | float]:
    """The trace's work as table columns (extractive steps offline, LLM calls and tokens with a
    model), the seconds left to the table's own column."""
    return {k: v for k, v in work_metrics(trace).items() if k != "Seconds"}


def render_retriever_comparison(compared: dict) -> None:
    results: list[RetrieverResult] = compared["results"]
    st.caption(f"Question: {compared['question']} · mode {compared['mode']}")
    st.dataframe(
        [{"retriever": CHOICES[r.name].label, "passages": len(r.source_nodes),
          **_work_columns(r.trace), "seconds": round(r.seconds, 2),
          "status": "failed" if r.error else "ok"} for r in results],
        hide_index=True, width="stretch",
    )
    for result in in_columns(results, 3):
        st.markdown(f"**{CHOICES[result.name].label}**")
        if result.error:
            st.warning(f"This retriever failed: {result.error}")
            continue
        st.markdown(fmt.markdown_text(result.answer or "") or NO_TEXT)
        if (score := stated_score(result.trace)) is not None:
            st.caption(score_note(score, compared.get("ranked_with")))
        st.caption(f"Passages ({len(result.source_nodes)})")
        for number, scored in enumerate(result.source_nodes, start=1):
            st.markdown(f"{number}. {passage_line(scored)}")
        with st.expander("How the passages were found"):
            render_notes(result.trace)
