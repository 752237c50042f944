"""The chunks of one document, readable: full text wrapped in a scrollable box, each chunk
headed by where it sits in the document (chunk k of n, its page, its character offsets).

Long documents are shown a batch at a time (a chooser picks the batch) so a file with
thousands of chunks does not draw thousands of elements at once.
"""

from __future__ import annotations

from typing import Any, Sequence

import streamlit as st

BATCH = 40  # chunks drawn at once
BOX_HEIGHT = 560  # pixels of the scrollable box


def position(number: int, total: int, node: Any) -> str:
    """Where a passage sits: "Passage 3 of 12 · page 2 · characters 1,200–2,310 · 1,110
    characters"."""
    parts = [f"Passage {number} of {total}"]
    page = node.metadata.get("page_label", node.metadata.get("page"))
    if page not in (None, ""):
        parts.append(f"page {page}")
    if node.start_char is not None and node.end_char is not None:
        parts.append(f"characters {node.start_char:,}–{node.end_char:,}")
    parts.append(f"{len(node.text):,} characters")
    return " · ".join(parts)


def batches(total: int, size: int = BATCH) -> list[tuple[int, int]]:
    """(first, last) chunk numbers, 1-based and inclusive, of each batch of ``size``."""
    return [(start + 1, min(start + size, total)) for start in range(0, total, size)]


def show_chunks(chunks: Sequence[Any], *, key: str) -> None:
    """Draw ``chunks`` (nodes in document order) in a scrollable box, a batch at a time."""
    total = len(chunks)
    if not total:
        st.info("This document has no passages.")
        return
    spans = dict(batches(total))  # first chunk number -> last
    first = next(iter(spans))
    if len(spans) > 1:
        first = st.selectbox(f"Passages to show ({total} in all)", list(spans),
                             key=f"chunk_batch_{key}",
                             format_func=lambda start: f"passages {start}–{spans[start]}")
    last = spans[first]
    with st.container(height=BOX_HEIGHT if last - first > 2 else "content", border=True):
        for number in range(first, last + 1):
            node = chunks[number - 1]
            st.caption(position(number, total, node))
            st.text(node.text)
            if number < last:
                st.divider()
