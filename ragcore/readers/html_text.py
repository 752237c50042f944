"""HTML and XHTML (.html, .htm, .xhtml) with BeautifulSoup: the visible text, title first.

Scripts, styles, templates, hidden elements and the <head> are dropped. Block elements
(paragraphs, headings, list items, table rows...) become paragraphs separated by blank lines,
inline elements flow into their paragraph, <br> breaks a line and <pre> keeps its layout. The
<title> goes into the ``title`` metadata and heads the text, unless the page already opens with
it. bs4 (with lxml when installed) is imported on first use.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

from ragcore.readers.decoding import decode_text, read_bytes
from ragcore.readers.part import Part

_SKIPPED = frozenset(
    "head script style noscript template svg canvas iframe object embed select "
    "button input textarea".split()
)
_BLOCKS = frozenset(
    "address article aside blockquote body caption dd details dialog div dl dt fieldset "
    "figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section "
    "summary table ul".split()
)
_CELLS = frozenset(("td", "th"))
_CHARSET = re.compile(rb"""(?:charset|encoding)\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_LABEL_ALIASES = {
    label: "cp1252" for label in ("iso-8859-1", "iso8859-1", "latin1", "latin-1", "us-ascii", "ascii")
}
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.IGNORECASE)


def read_html(path: Path) -> list[Part]:
    """One part: the page's visible text, with ``title`` metadata when it has a <title>."""
    data = read_bytes(path)
    match = _CHARSET.search(data[:2048])
    declared = match.group(1).decode("ascii").lower() if match else None
    # As browsers do (WHATWG Encoding): a page labelled Latin-1 or ASCII is read as cp1252.
    text = decode_text(data, path, declared=_LABEL_ALIASES.get(declared, declared))
    title, body = html_to_text(text)
    if title and not body.startswith(title):
        body = f"{title}\n\n{body}" if body else title
    return [Part(body, {"title": title} if title else {})]


def html_to_text(markup: str) -> tuple[str | None, str]:
    """(title, visible text) of an HTML document, paragraphs separated by blank lines."""
    from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

    with warnings.catch_warnings():
        # XHTML is parsed as HTML on purpose: the HTML parser forgives what real pages get wrong.
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(markup, _parser())
    title_tag = soup.find("title")
    title = " ".join(title_tag.get_text().split()) if title_tag else ""
    return title or None, _Collector().collect(soup)


def _parser() -> str:
    try:
        import lxml  # noqa: F401  (the fast parser; html.parser is the stdlib fallback)
    except ImportError:
        return "html.parser"
    return "lxml"


def _hidden(tag: Any) -> bool:
    attrs = tag.attrs or {}
    if "hidden" in attrs or attrs.get("aria-hidden") == "true":
        return True
    return bool(_HIDDEN_STYLE.search(attrs.get("style") or ""))


class _Collector:
    """Walks the tree without recursion (deeply nested pages must not hit the recursion limit)."""

    def __init__(self) -> None:
        self.paragraphs: list[str] = []
        self.lines: list[list[str]] = [[]]

    def collect(self, soup: Any) -> str:
        from bs4 import NavigableString, Tag
        from bs4.element import PreformattedString  # comments, doctypes, CDATA, <?...?>

        stack: list[Any] = [soup]
        while stack:
            node = stack.pop()
            if node is _FLUSH:
                self.flush()
            elif isinstance(node, Tag):
                self._open(node, stack)
            elif isinstance(node, NavigableString) and not isinstance(node, PreformattedString):
                self.lines[-1].append(str(node))
        self.flush()
        return "\n\n".join(self.paragraphs)

    def _open(self, tag: Any, stack: list[Any]) -> None:
        name = tag.name
        if name in _SKIPPED or _hidden(tag):
            return
        if name == "br":
            self.lines.append([])
        elif name == "tr":  # table rows are lines of one paragraph, cells joined by " | "
            self.lines.append([])
            stack.extend(reversed(tag.contents))
        elif name == "pre":
            self.flush()
            text = tag.get_text().strip("\n")
            if text.strip():
                self.paragraphs.append(text)
        elif name in _BLOCKS:
            self.flush()
            stack.append(_FLUSH)
            stack.extend(reversed(tag.contents))
        else:
            if name in _CELLS:
                self.lines[-1].append(" | ")
            stack.extend(reversed(tag.contents))

    def flush(self) -> None:
        lines = (" ".join("".join(parts).split()).strip(" |") for parts in self.lines)
        text = "\n".join(line.strip() for line in lines if line.strip(" |"))
        if text:
            self.paragraphs.append(text)
        self.lines = [[]]


_FLUSH = object()  # a stack marker: the block element opened earlier ends here
