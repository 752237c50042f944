"""What Copy puts on the clipboard: a reply as shown, in plain text, its sources as footnotes.

The pages show a reply as Markdown with ``[[1]](#anchor)`` markers linking to its sources
(``markers.mark_listing``); pasted into an e-mail that is noise. ``copied_text`` keeps the words
and the numbers, drops the Markdown, and adds one numbered footnote per source cited (file and
page), so the pasted text still says where each claim comes from.
"""

from __future__ import annotations

import re

from .sources import SourceListing

_LINKED_MARKER = re.compile(r"\[\[(\d+)\]\]\([^)\s]*\)")  # [[1]](#chat-3-source-1)
_MARKER = re.compile(r"\[(\d+)\]")
_STRONG = re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.DOTALL)


def plain_reply(shown: str) -> str:
    """``shown`` without Markdown link syntax or bold: markers become ``[1]``."""
    text = _LINKED_MARKER.sub(r"[\1]", shown)
    return _STRONG.sub(lambda m: m.group(1) or m.group(2), text).strip()


def copied_text(shown: str, listing: SourceListing | None) -> str:
    """The reply ``shown`` as plain text, then a footnote per source it cites ("[1] memo.pdf,
    page 3"); a reply citing none lists the sources shown under it, numbered as on screen."""
    text = plain_reply(shown)
    if listing is None:
        return text
    sources = {s.number: s for s in (*listing.shown, *listing.hidden)}
    cited = [n for n in dict.fromkeys(int(m) for m in _MARKER.findall(text)) if n in sources]
    numbers = cited or [s.number for s in listing.shown]
    if not numbers:
        return text
    notes = [f"[{n}] {source_label(sources[n].scored)}" for n in sorted(numbers)]
    return text + "\n\n" + "\n".join(notes)


def source_label(scored) -> str:
    """A source as a footnote names it: its file (or document id) and page."""
    label = scored.file_name or scored.node.ref_doc_id or "a passage"
    return f"{label}, page {scored.page}" if scored.page else label
