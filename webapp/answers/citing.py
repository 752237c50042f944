"""The sources under an answer, as the Query and Chat pages show them (rendering only).

What an answer used of each source and which sources are shown is decided in
``ragcore.present.support`` and ``ragcore.present.sources``; this module caches that work per
answer (Streamlit reruns a page on every click, and measuring support can embed sentences) and
draws the result: shown sources, a toggle for the ones below the relevance floor, and the answer
sentences no passage supports.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

import streamlit as st

from ragcore import ScoredNode
from ragcore.present import format as fmt, support
from ragcore.present import (
    Citations,
    ListedSource,
    SourceListing,
    answer_citations,
    list_sources,
    listing_strengths,
    mark_listing,
    markup_of,
    passage_segments,
    reflow_segments,
    reflows,
    render_segments,
    support_embedder,
)
from webapp.indexes.document_view import (CARD_NOTE, card_name, is_card, open_in_document_button,
                                          tints_said)

# Draws one listed source: (source, whether it starts open).
DrawSource = Callable[[ListedSource, bool], None]
# A marker [n] links to its source's anchor; a click opens the source's expander (the element
# after the anchor's) and scrolls it to the middle of the window, not under the page's top bar.
MARKER_CLICKS = """<script>
(() => {
  if (window.rcMarkerClicks) return;
  window.rcMarkerClicks = true;
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href*="-source-"]');
    const id = link && decodeURIComponent((link.getAttribute("href").split("#")[1]) || "");
    const anchor = id && document.getElementById(id);
    if (!anchor) return;
    event.preventDefault();
    event.stopPropagation();
    const holder = anchor.closest('[data-testid="stElementContainer"]') || anchor;
    let source = holder.nextElementSibling;
    while (source && !source.querySelector("details")) source = source.nextElementSibling;
    const details = source && source.querySelector("details");
    if (details && !details.open) details.querySelector("summary").click();
    setTimeout(() => (source || anchor).scrollIntoView({block: "center"}), 50);
  }, true);
})();
</script>"""


def source_listing(
    answer: str,
    nodes: Sequence[ScoredNode],
    *,
    trace: Any,
    retrieval_mode: str,
    response_mode: str | None = None,
    embedder: Any = None,
    question: str = "",
    judge: Any = None,
    held: Callable[[str], bool] | None = None,
) -> SourceListing:
    """The listing of an answer's sources; the citation work is cached per answer. With the
    ``question``, a generated answer is judged by ragcore's grounding verdict as the engines
    judge it (``present.answer_citations``; ``held``: the index's words,
    ``engines.index_words``)."""
    extractive = support.is_extractive(trace)
    model = getattr(support_embedder(embedder, retrieval_mode), "model_name", None)
    # ``model`` keys the cache; the embedder does not, nor which index ``held`` reads (the
    # passages are that index's), nor which judge: whether one can be asked does (a saved reply
    # checked without one, then the same words just written, checked with one)
    judges = callable(getattr(judge, "first_token_logprobs", None))
    key = (answer, tuple(n.node.text for n in nodes), extractive, model, question,
           response_mode, held is None, judges)
    citations = _cached(key, lambda: answer_citations(
        answer, nodes, retrieval_mode=retrieval_mode, extractive=extractive,
        response_mode=response_mode, embedder=embedder, question=question, judge=judge,
        held=held))
    return list_sources(nodes, citations, retrieval_mode=retrieval_mode,
                        response_mode=response_mode, question=question)


def marked_listing(answer: str, nodes: Sequence[ScoredNode], *, trace: Any, retrieval_mode: str,
                   response_mode: str | None = None, embedder: Any = None, anchors: str = "",
                   question: str = "", judge: Any = None,
                   held: Callable[[str], bool] | None = None) -> tuple[str, SourceListing]:
    """``answer`` with [1] [2] markers after the sentences its sources support, and the listing
    of those sources numbered to match (``source_listing``, then ``markers.mark_listing``).

    With ``anchors`` (a prefix unique on the page, e.g. one per chat turn) each marker links to
    its source, where ``source_anchor(anchors, number)`` placed an anchor.
    """
    listing = source_listing(answer, nodes, trace=trace, retrieval_mode=retrieval_mode,
                             response_mode=response_mode, embedder=embedder, question=question,
                             judge=judge, held=held)
    if not anchors:
        return mark_listing(answer, listing)
    return mark_listing(answer, listing,
                        marker=lambda n: f"[[{n}]](#{_anchor_id(anchors, n)})")


def draw_sources(listing: SourceListing, lookup: Any, index_name: str, *, anchors: str,
                 retrieval_mode: str, advanced: bool, toggle_key: str,
                 expand_first: bool = True) -> None:
    """The numbered sources under an answer (Query and Chat pages): each an expander titled
    with what the answer check found it did (how close the search found it, and its score,
    under Advanced) after the anchor its [n] markers link to, holding its passage and "Open in
    document"."""
    strengths = listing_strengths(listing, retrieval_mode)
    drawn: list[int] = []  # the first anchor carries the markers' click handler

    def draw(source: ListedSource, expanded: bool) -> None:
        title = source_title(source, strength=strengths.get(source.number, ""),
                             advanced=advanced)
        source_anchor(anchors, source.number, clicks=not drawn)
        drawn.append(source.number)
        with st.expander(title, expanded=expanded and expand_first):
            source_body(source, lookup, index_name, key=f"{anchors}_open_{source.number}")

    render_listing(listing, draw, toggle_key=toggle_key, advanced=advanced)


def source_anchor(anchors: str, number: int, *, clicks: bool = False) -> None:
    """The place a marker [number] links to: call it right before drawing that source; with
    ``clicks``, the script making a marker open its source (``MARKER_CLICKS``) too."""
    anchor = f'<span id="{_anchor_id(anchors, number)}"></span>'
    if clicks:
        st.html(anchor + MARKER_CLICKS, unsafe_allow_javascript=True)
    else:
        st.html(anchor)


def _anchor_id(anchors: str, number: int) -> str:
    return f"{re.sub(r'[^A-Za-z0-9_-]', '-', anchors)}-source-{number}"


def source_body(source: ListedSource, lookup: Any, index_name: str, *, key: str) -> None:
    """A listed source's passage (rendered, the used spans marked), a line saying what its
    tints mean, and its "Open in document" button; the caller draws the title (``source_title``)."""
    segments = shown_segments(source, lookup)
    st.html(render_segments(segments, markup_of(source.scored.file_name)))
    if is_card(source.scored):  # not in the document's text: nothing to open it at
        st.caption(CARD_NOTE)
        return
    drawn = {s.kind for s in segments if s.kind in ("passage", "cited", "answer")
             and s.text.strip()}
    if drawn:  # what each tint means, as the reading view says it
        st.caption(f"Highlight: {tints_said(drawn)}")
    open_in_document_button(source, index_name, key=key)


# The citation work of the latest answers, for every session of the process. Not st.cache_data:
# it replays what a cached call drew, and the check's judge, a model call read in the page's
# thread, redraws the waiting notice (``webapp.waiting``), a block made outside the call, so the
# next rerun's replay failed ("CacheReplayClosureError") and the Chat page showed an error.
_CITATIONS: OrderedDict[tuple, Citations] = OrderedDict()
_CITATIONS_LOCK = threading.Lock()
CACHED_ANSWERS = 256


def _cached(key: tuple, citations: Callable[[], Citations]) -> Citations:
    """The citation work of ``key``'s answer, made by ``citations`` once."""
    with _CITATIONS_LOCK:
        if key in _CITATIONS:
            _CITATIONS.move_to_end(key)
            return _CITATIONS[key]
    made = citations()
    with _CITATIONS_LOCK:
        _CITATIONS[key] = made
        while len(_CITATIONS) > CACHED_ANSWERS:
            _CITATIONS.popitem(last=False)
    return made


def render_listing(listing: SourceListing, draw: DrawSource, *, toggle_key: str,
                   advanced: bool = True) -> None:
    """Shown sources, then a toggle revealing the ones below the relevance floor; the warning
    about sentences marked (not in the documents) when one is; how support was judged (which
    models, which measure) only under ``advanced``."""
    if listing.without_sources:
        st.caption(listing.without_sources)
        return
    verdict = listing.verdict
    if verdict is not None and verdict.label == "partly" and listing.marked:
        st.warning("Some of this answer is not in the documents: the sentences marked "
                   "**(not in the documents)** are the model's own, not what a passage says.")
    elif verdict is None:
        for sentence in listing.unsupported:
            st.caption(f"{support.NOT_STATED}: “{fmt.markdown_text(sentence)}”")
    if listing.measure and advanced:
        st.caption(f"Support judged by {listing.measure}.")
    for position, source in enumerate(listing.shown):
        draw(source, position == 0)
    if listing.hidden:
        label = (f"Show {fmt.hidden_sources_label(len(listing.hidden))} the search found "
                 "(weaker matches)")
        if st.toggle(label, key=toggle_key):
            for source in listing.hidden:
                draw(source, False)


def shown_segments(source: ListedSource, lookup: Any) -> list:
    """The source's passage in its surrounding text, the spans the answer used marked (its
    short answer emphasised in them), for ``render_segments`` (Markdown and reST rendered)."""
    segments = passage_segments(source.scored.node, source.use.spans,
                                answer=source.use.answer_spans, lookup=lookup)
    if reflows(source.scored.file_name):  # a PDF's printed line ends are not the reader's
        segments = reflow_segments(segments)
    return segments


def source_title(source: ListedSource, *, strength: str = "", advanced: bool = True) -> str:
    """'[1] zta.pdf · page 12 · states this': what the answer check found the passage did
    for the answer (``SourceUse.note``); under ``advanced`` also how close the search found it
    and its score ('· search: far from your question · score 0.412', ``strength`` from
    ``strength.listing_strengths``). Without ``strength``, the plain label
    '1. zta.pdf · page 12 · quoted in the answer'. The search's word is no word on support (a
    bibliography entry is close to a question's words), so it waits under Advanced."""
    scored = source.scored
    if is_card(scored):  # no page, no search score: the document's own header
        number = f"[{source.number}]" if strength else f"{source.number}."
        return " · ".join(p for p in (f"{number} {card_name(scored)}", source.use.note) if p)
    if not strength:
        return fmt.source_label(source.number, source.scored, note=source.use.note,
                                advanced=advanced)
    parts = [f"[{source.number}] {scored.file_name or scored.node.ref_doc_id or 'unknown source'}"]
    if scored.page:
        parts.append(f"page {scored.page}")
    if advanced:
        parts.append(strength)
    if advanced and scored.score is not None:
        parts.append(f"score {scored.score:.3f}")
    if source.use.note:
        parts.append(source.use.note)
    return " · ".join(parts)

