"""'Open in document': a cited source shown where it lives, and the original offered for download.

A PDF source shows its page as an image (PDFium) with the passage's lines tinted blue, the
spans the answer used in orange over it (the caption names only the tints left visible) and its short answer in a deeper orange, underlined (geometry:
``ragcore.present.passage.page_boxes``); any other document shows its text, rendered like a passage
(Markdown and reST as formatted text), with the passage marked, the short answer in bold, and
scrolled into view. Used by the Query page; the Chat page can call the same button. A
document's card (title, authors, date) is no passage of its text: it is named as what it is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import streamlit as st

from ragcore.errors import ReaderError
from ragcore.present import (
    ListedSource, Segment, focus_window, highlight_rects, markup_of, outside_fence,
    passage_segments, render_segments,
)
from webapp import state

# Characters of a text document shown on each side of the passage (a whole book would be slow).
WINDOW = 20_000
PAGE_SCALE = 1.6  # pixels per PDF point: 115 dpi, a letter page about 980 pixels wide
PASSAGE_FILL = (66, 153, 225, 60)
CITED_FILL = (246, 173, 85, 130)
ANSWER_FILL = (221, 107, 32, 120)  # the short answer, over the cited tint
ANSWER_LINE = (156, 66, 33, 255)
ANCHOR = "rc-passage-start"
# In the iframe: the app's font, and the passage scrolled to the middle of the view.
SCROLL = ("<style>body{font-family:'Source Sans Pro','Source Sans 3',sans-serif;}</style>"
          "<script>const e=document.getElementById('" + ANCHOR + "');"
          "if(e){e.scrollIntoView({block:'center'});}</script>")


def open_in_document_button(source: ListedSource, index_name: str, *, key: str) -> None:
    """A button opening ``source`` in its document, in a dialog (for a page's source list)."""
    if st.button("Open in document", key=key, icon=":material/description:"):
        show_document(source, index_name)


@st.dialog("Source in its document", width="large")
def show_document(source: ListedSource, index_name: str) -> None:
    node = source.scored.node
    name = source.scored.file_name or "this document"
    path = original_path(node.metadata, index_name)
    if path is None:
        st.warning(f"The original of {name} is no longer in the workspace: upload it again to "
                   "open it here.")
        return
    page = node.metadata.get("page")
    where = f" · page {source.scored.page}" if page else ""
    caption = st.empty()  # filled once the highlight is drawn: it names only the tints shown
    caption.caption(f"[{source.number}] {name}{where}")
    try:
        if path.suffix.lower() == ".pdf" and page:
            drawn = show_pdf_page(path, int(page), node.text, source.use.spans,
                                  source.use.answer_spans)
        else:
            drawn = show_text(path, node, source.use.spans, source.use.answer_spans)
        caption.caption(f"[{source.number}] {name}{where}: {tints_said(drawn)}")
    except ReaderError as exc:
        st.warning(f"{name} cannot be shown here: {exc}")
    st.download_button(f"Download {path.name}", data=path.read_bytes(), file_name=path.name,
                       key=f"download_{source.number}", icon=":material/download:")


def original_path(metadata: dict[str, Any], index_name: str) -> Path | None:
    """The uploaded original of a node's document, where it was read or in the index's uploads
    (for an index in the database, from the database when this server never had it)."""
    recorded = metadata.get("file_path")
    if recorded and Path(recorded).is_file():
        return Path(recorded)
    name = metadata.get("file_name")
    if not name:
        return None
    workspace = state.workspace()
    upload = workspace.upload_dir(index_name) / name
    if upload.is_file():
        return upload
    if workspace.in_database(index_name):  # another server's upload: the database keeps it
        return workspace.database.original(index_name, name, upload.parent)
    return None


def tints_said(drawn: set[str]) -> str:
    """The highlight in words, naming only the tints ``drawn`` ("passage", "cited", "answer"):
    a passage the answer used all of shows no blue (issue 66)."""
    said = []
    if "passage" in drawn:
        said.append("the passage is tinted blue")
    if "cited" in drawn:
        said.append("the words the answer used orange" if said else
                    "the words the answer used are tinted orange")
    if "answer" in drawn:
        said.append("its short answer deeper orange" if said else
                    "the answer's words are tinted deeper orange")
    return (", ".join(said) if said else "the passage is not highlighted") + "."


def drawn_tints(whole: list, cited: list, answer: list = ()) -> set[str]:
    """The tints left visible on a page: each is drawn over the one before it."""
    drawn = {"passage"} if _uncovered(whole, [*cited, *answer]) else set()
    if _uncovered(cited, answer):
        drawn.add("cited")
    return drawn | ({"answer"} if answer else set())


def _uncovered(rects: list, over: list, *, slack: float = 4.0) -> bool:
    """Whether some part of ``rects`` wider than ``slack`` pixels shows outside ``over``."""
    for rect in rects:
        spans = sorted((o.left, o.right) for o in over
                       if o.top <= rect.top + slack and o.bottom >= rect.bottom - slack)
        reached = rect.left
        for left, right in spans:
            if left - reached > slack:
                return True
            reached = max(reached, right)
        if rect.right - reached > slack:
            return True
    return False


def show_pdf_page(path: Path, page: int, passage: str, spans: Any, answer: Any = ()
                  ) -> set[str]:
    from ragcore.readers.pdf.page import page_with_boxes

    rendered = page_with_boxes(path, page, scale=PAGE_SCALE)
    whole, cited = highlight_rects(rendered.text, rendered.boxes, passage, spans,
                                   page_height=rendered.height, scale=rendered.scale)
    answered = highlight_rects(rendered.text, rendered.boxes, passage, answer,
                               page_height=rendered.height, scale=rendered.scale)[1]
    if not whole:
        st.caption("The passage could not be found in this page's text layer: the page is shown "
                   "without a highlight.")
    image = highlighted(rendered.image, whole, cited, answered)
    band = focus_window(whole, *image.size)
    if band is None:
        st.image(image, width="stretch")
        return drawn_tints(whole, cited, answered)
    st.image(image.crop(band), width="stretch", caption=f"The passage on page {page}")
    with st.expander(f"Whole page {page}"):
        st.image(image, width="stretch")
    return drawn_tints(whole, cited, answered)


def highlighted(image: Any, whole: list, cited: list, answer: list = ()) -> Any:
    """``image`` with the passage's rectangles tinted, the cited ones tinted stronger and the
    short answer's strongest, underlined."""
    from PIL import Image, ImageDraw

    base = image.convert("RGBA")
    overlay = Image.new("RGBA", base.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for rects, fill in ((whole, PASSAGE_FILL), (cited, CITED_FILL), (answer, ANSWER_FILL)):
        for rect in rects:
            draw.rectangle([rect.left, rect.top, rect.right, rect.bottom], fill=fill)
    for rect in answer:
        draw.line([rect.left, rect.bottom, rect.right, rect.bottom], fill=ANSWER_LINE, width=2)
    return Image.alpha_composite(base, overlay).convert("RGB")


def show_text(path: Path, node: Any, spans: Any, answer: Any = ()) -> set[str]:
    text = document_text(path, node)
    if text is None:
        st.caption("This document's text has changed since it was indexed: the passage alone "
                   "is shown.")
        segments = passage_segments(node, spans, answer=answer)
    else:
        segments = document_segments(text, node, spans, answer)
    body = render_segments(segments, markup_of(path.name), anchor=ANCHOR)
    # st.iframe: components.v1.html, which this replaced, is removed after 2026-06-01
    st.iframe(body + SCROLL, height=560, alt="The document around the passage")
    return {s.kind for s in segments if s.kind != "context" and s.text.strip()}


def document_text(path: Path, node: Any) -> str | None:
    """The text the node was cut from (read again), or None when it no longer holds the node."""
    from ragcore import load_file

    documents = load_file(path)
    for document in documents:
        start = node.start_char
        if start is not None and document.text[start:start + len(node.text)] == node.text:
            return document.text
    return None


def document_segments(text: str, node: Any, spans: Any, answer: Any = ()) -> list[Segment]:
    """The document around the node's passage (``WINDOW`` characters each side), the passage and
    its cited spans marked, the short answer's ``answer`` spans in them emphasised;
    ``node.start_char`` is the passage's place in ``text``."""
    start = node.start_char or 0
    end = start + len(node.text)
    shown_from = outside_fence(text, max(0, start - WINDOW))  # never inside a code block
    before = ("…\n\n" if shown_from else "") + text[shown_from:start]
    after = text[end:end + WINDOW] + (" …" if end + WINDOW < len(text) else "")
    # the text the reading left out of the passage is shown here, as the document's context
    segments = [Segment(before, "context"),
                *passage_segments(node, spans, answer=answer, mark_cuts=False),
                Segment(after, "context")]
    return [s for s in segments if s.text]


# The id's end of a card passage: ragcore.retrieval.cards.CARD_SUFFIX (not a public name, and
# the app reaches ragcore through few doors; tests/app/test_app_true_labels.py checks they agree).
CARD_SUFFIX = "#card"
CARD_NOTE = ("Read off the document itself when it was indexed (its title page, header or PDF "
             "details): not a passage of its text.")
# A card's lines ("Title of this document: ..."), by the field each names (ragcore.cards).
_CARD_FIELDS = (("Title of", "title"), ("Author", "authors"), ("Date of", "date"),
                ("Abstract of", "abstract"))


def is_card(scored: Any) -> bool:
    """Whether ``scored`` is a document's card (``ragcore.retrieval.cards``), not a passage."""
    return scored.node.node_id.endswith(CARD_SUFFIX)


def card_name(scored: Any) -> str:
    """'About ssdf.pdf: its title, authors and date': a card named as what it is, the fields
    it holds (it has no page: it was read off the document's header or title page)."""
    lines = scored.node.text.splitlines()
    fields = [name for start, name in _CARD_FIELDS
              if any(line.startswith(start) for line in lines)]
    held = (", ".join(fields[:-1]) + " and " + fields[-1]) if len(fields) > 1 else "".join(fields)
    name = scored.file_name or scored.node.ref_doc_id or "the document"
    return f"About {name}: its {held}" if held else f"About {name}"
