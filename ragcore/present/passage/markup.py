"""A passage as people read it: Markdown and reST rendered, the retrieved and cited parts marked.

``citations.passage_segments`` cuts a passage into context, passage and cited runs of document
text; ``citations.segments_to_html`` shows them as plain text, which suits PDFs and text files but
shows a Markdown file's "### Ownership Rules" and a reST file's ".. code-block::" as written.
Here the runs are joined with private-use sentinel characters around each run, reST is turned
into Markdown (``rst_text``), Markdown is rendered by markdown-it with raw HTML disabled (so a
document still cannot inject markup), and every text run of the rendered HTML is wrapped in the
style of the run it falls in. Sentinels are moved off lines where they would hide block syntax
(a heading's "#", a code fence, a reST underline).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from ..citations import MARKED, SEGMENT_STYLES, Segment, segments_to_html
from ...readers.markdown import MARKDOWN_SUFFIXES
from ...readers.markdown.fences import balance_fences
from ...readers.markdown.readable import readable_markdown
from .rst_text import rst_to_markdown

_MARKUP_BY_SUFFIX = {**dict.fromkeys(MARKDOWN_SUFFIXES, "markdown"), ".rst": "rst", ".rest": "rst"}
_KINDS = ("context", "passage", "cited", "answer")
_OPEN = {kind: chr(0xE010 + 2 * i) for i, kind in enumerate(_KINDS)}
_CLOSE = {kind: chr(0xE011 + 2 * i) for i, kind in enumerate(_KINDS)}
_STATE = {**{c: k for k, c in _OPEN.items()}, **{c: None for c in _CLOSE.values()}}
_SENTINELS = re.compile("[\ue010-\ue017]")
_BLOCK_MARKUP = re.compile(r"^([ \t]*)([\ue010-\ue017]+)((?:#{1,6}[ \t]+|[-*+][ \t]+|\d+[.)][ \t]+"
                           r"|>[ \t]?)+)")
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
# Emphasis delimiters touching a sentinel would not open or close ("_do_" + sentinel): the
# sentinel goes inside the delimiters.
_AFTER_CLOSER = re.compile(r"(?<=\w)([_*~`]+)([\ue010-\ue017]+)")
_BEFORE_OPENER = re.compile(r"([\ue010-\ue017]+)([_*~`]+)(?=\w)")
_LINE_START = re.compile(r"(^|\n)([\ue010-\ue017]+)")
_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
_WRAPPER = (
    "<style>.rc-passage h1,.rc-passage h2,.rc-passage h3,.rc-passage h4,.rc-passage h5,"
    ".rc-passage h6{font-size:1rem;margin:0.5rem 0 0.2rem;}.rc-passage p{margin:0 0 0.5rem;}"
    ".rc-passage pre{white-space:pre-wrap;margin:0 0 0.5rem;}</style>"
    '<div class="rc-passage" style="line-height:1.5;font-size:0.92rem;'
    'border-left:3px solid #2B6CB0;padding:0.4rem 0.8rem;">{body}</div>'
)


def markup_of(file_name: str | None) -> str:
    """'markdown', 'rst' or 'text': how a file's passages are written."""
    return _MARKUP_BY_SUFFIX.get(PurePath(file_name or "").suffix.lower(), "text")


def render_segments(segments: list[Segment], markup: str, *, anchor: str = "") -> str:
    """The segments as one HTML block: rendered when ``markup`` is markdown or rst. With
    ``anchor``, the first retrieved or cited run carries that id (to scroll it into view)."""
    if markup not in ("markdown", "rst"):
        return _anchored(segments_to_html(segments), anchor)
    source = _with_sentinels(segments)
    if markup == "markdown":  # cut from inside a code block; raw HTML and mdBook markup
        source = readable_markdown(balance_fences(source, hidden=_SENTINELS), hidden=_SENTINELS)
    if markup == "rst":
        source = rst_to_markdown(_off_underlines(_off_line_starts(source)))
    return _anchored(_WRAPPER.replace("{body}", _styled(render_markdown(_lift(source)))), anchor)


def _anchored(rendered: str, anchor: str) -> str:
    starts = [rendered.find(f'<{tag} style="{SEGMENT_STYLES[kind]}"')
              for tag, kind in (("span", "passage"), ("mark", "cited"), ("mark", "answer"))]
    found = [s for s in starts if s >= 0]
    if not anchor or not found:
        return rendered
    at = min(found) + rendered[min(found):].index(" ")
    return f'{rendered[:at]} id="{anchor}"{rendered[at:]}'


def render_markdown(text: str) -> str:
    """CommonMark (with tables) as HTML; raw HTML in ``text`` is escaped, never passed through."""
    try:
        from markdown_it import MarkdownIt
    except ImportError as exc:  # comes with streamlit (through rich)
        raise ImportError("rendering passages needs markdown-it-py: pip install "
                          "markdown-it-py") from exc
    return MarkdownIt("commonmark", {"html": False}).enable("table").render(text)


def _with_sentinels(segments: list[Segment]) -> str:
    return "".join(
        _OPEN[s.kind] + _SENTINELS.sub("", s.text) + _CLOSE[s.kind] for s in segments if s.text
    )


def _off_underlines(text: str) -> str:
    """Sentinels on a reST title underline moved to the end of the title line."""
    lines = text.split("\n")
    for index in range(1, len(lines)):
        marks = "".join(_SENTINELS.findall(lines[index]))
        if marks and _ADORNMENT.match(_SENTINELS.sub("", lines[index])):
            lines[index] = _SENTINELS.sub("", lines[index])
            lines[index - 1] += marks
    return "\n".join(lines)


def _off_line_starts(text: str) -> str:
    """Sentinels opening a line moved to the end of the line before, where they hide no
    directive ("\\ue012.. code-block::") and break no indented block."""
    return _LINE_START.sub(lambda m: m.group(2) + (m.group(1) or "\n"), text)


def _lift(text: str) -> str:
    """Sentinels moved after line-start block markup, and off code-fence lines."""
    lines, carried = [], ""
    for line in text.split("\n"):
        line = carried + line
        carried = ""
        bare = _SENTINELS.sub("", line)
        if _FENCE.match(bare):
            carried = "".join(_SENTINELS.findall(line))
            lines.append(bare)
            continue
        line = _BLOCK_MARKUP.sub(r"\1\3\2", line)
        lines.append(_BEFORE_OPENER.sub(r"\2\1", _AFTER_CLOSER.sub(r"\2\1", line)))
    return "\n".join(lines) + carried


def _styled(rendered: str) -> str:
    """Each text run of ``rendered`` HTML wrapped in the style of the segment it belongs to."""
    state: str | None = None
    out = []
    for token in re.split(r"(<[^>]*>)", rendered):
        if token.startswith("<"):
            out.append(_SENTINELS.sub("", token))
            continue
        for piece in re.split("([\ue010-\ue017])", token):
            if piece in _STATE:
                state = _STATE[piece]
            elif piece:
                out.append(_wrap(piece, state))
    return "".join(out)


def _wrap(text: str, kind: str | None) -> str:
    if kind is None or not text.strip():
        return text
    tag = "mark" if kind in MARKED else "span"
    return f'<{tag} style="{SEGMENT_STYLES[kind]}">{text}</{tag}>'
