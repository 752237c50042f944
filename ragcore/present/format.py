"""How the app words things: backend labels, source labels, sizes, ingest tables, safe markdown,
dates ("today 14:05", "yesterday 09:12", "3 Nov", "3 Nov 2025": the workspace stores ISO-8601
UTC timestamps, shown in the machine's local time, relative to now, without seconds or offsets),
and what Copy gives of a reply as shown (``copied_text``): plain text, its markers ``[1]``
without their links, and one footnote per source cited (file, and page or section), as a person
pastes it elsewhere; a reply's draft as it streams (``draft_markdown``: a bold answer being
written is drawn bold, never after a literal "**").

Pure functions with no Streamlit import, so they are tested like the rest of ragcore; the
pages and ``webapp.state`` use them to turn ragcore objects into what people read.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from ..retrieval.optimizer import CUT
from .passage.plain import plain_text

if TYPE_CHECKING:
    from ..types import ScoredNode
    from .sources import SourceListing


BUILT_IN = "the built-in model"  # the packaged model, without Advanced: no file's name


def describe_backend(llm: Any, *, advanced: bool = True) -> str:
    """A short label of the active answering backend; the packaged model is ``BUILT_IN``
    unless ``advanced`` (its name is a file's: "qwen2.5-1.5b-instruct-q4_k_m.gguf")."""
    from ..llms.resolve import describe_llm

    if not advanced and str(getattr(llm, "model", "")).startswith("local:"):
        return BUILT_IN
    return describe_llm(llm)


def is_extractive(llm: Any) -> bool:
    return getattr(llm, "model", "") == "extractive"


def backend_notice(llm: Any, *, advanced: bool = True) -> tuple[str, str]:
    """(kind, text) telling which answering backend is active, in plain words."""
    label = describe_backend(llm, advanced=advanced)
    if is_extractive(llm):
        return "info", (
            f"**Answering: {label}.** Answers quote the most relevant sentences of "
            "your documents word for word. For written answers, choose the built-in model, "
            "Ollama or an OpenAI-compatible server on the Settings page."
        )
    return "success", f"**Answering: {label}.** Answers are written by this model."


STAGE_WORDS = {
    "reading": "reading",
    "embedding": "splitting and embedding",
    "done": "done",
    "failed": "failed",
    "unchanged": "unchanged, skipped",
    "saving": "saving the index",
}


def report_rows(report: Any) -> list[dict[str, Any]]:
    """The ingest report as table rows: file, what happened, passages, seconds."""
    return [
        {
            "file": outcome.file_name,
            "result": outcome.describe(),
            "passages": outcome.chunks,
            "seconds": round(outcome.seconds, 2),
        }
        for outcome in report.files
    ]


def markdown_text(text: str) -> str:
    """Answer text for st.markdown (which never renders raw HTML).

    '$' is escaped so prices never turn into formulas, and image syntax so text quoted from a
    document cannot make the browser fetch a remote picture.
    """
    return text.replace("$", "\\$").replace("![", "!\\[")


_MARKUP = re.compile(r"([\\`*_\[\]<>#~|$])")


def literal_markdown(text: str) -> str:
    """``text`` shown as written by st.markdown: a file name's ``__init__`` stays as it is,
    not turned into bold "init" (for error messages and other text not meant as Markdown)."""
    return _MARKUP.sub(r"\\\1", text)


# What makes a line a block (a quote, a list item, a rule, a table, a code fence) in Markdown.
_BLOCK_START = re.compile(r"^(\d*)([>*+|=`~.)-])")


def passage_excerpt(text: str, limit: int, *, cut: Sequence[str] = ()) -> str:
    """A passage as one run of plain text, cut at a word before ``limit`` characters: its
    Markdown's marks dropped ("## Build", "**", backticks, "- ", a "```toml" fence: see
    ``passage.plain``), its words kept; "…" wherever text is left out: past ``limit``, and at
    the ends ``cut`` names ("start", "end": what the reading left out, ``node_cut``)."""
    flat = plain_text(text)
    if len(flat) > limit:
        flat = flat[:limit].rsplit(" ", 1)[0] + " …"
    elif "end" in cut and flat:
        flat += " …"
    return f"… {flat}" if "start" in cut and flat else flat


def node_cut(node: Any) -> tuple[str, ...]:
    """The ends of ``node``'s passage the reading left out ("start", "end"; none for a whole
    passage): ``retrieval.optimizer.CUT``."""
    return tuple(node.metadata.get(CUT) or ())


def passage_preview(text: str, limit: int, *, cut: Sequence[str] = ()) -> str:
    """``passage_excerpt`` for st.markdown: shown as written (a passage opening with "# History"
    is drawn as text, not as a page-wide heading; "*" and "_" left in it are no emphasis) and
    its start never read as a block ("1. First" is no list)."""
    shown = literal_markdown(passage_excerpt(text, limit, cut=cut))
    return _BLOCK_START.sub(r"\1\\\2", shown, count=1)


def node_preview(node: Any, limit: int) -> str:
    """``passage_preview`` of ``node``'s text, "…" where the reading cut it (``node_cut``)."""
    return passage_preview(node.text, limit, cut=node_cut(node))


def markdown_stream(chunks: Any) -> Iterator[str]:
    """Streamed text escaped like ``markdown_text`` of the whole (for st.write_stream).

    Markup may be split across chunks ('see !' then '[x](http://evil/p.png)'), so a chunk's
    trailing '!' is held back until the next chunk shows whether a '[' follows it.
    """
    held = ""
    for chunk in chunks:
        text = held + chunk
        held = "!" if text.endswith("!") else ""
        text = text[:-1] if held else text
        if text:
            yield markdown_text(text)
    if held:
        yield markdown_text(held)


# A line that starts a block of its own (a list item, a heading, a quote, a table row): no
# emphasis or code span runs across it.
_BLOCK_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]|\d{1,9}[.)][ \t]|#{1,6}[ \t]|>|\|)")
_CODE_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_MARK_RUN = re.compile(r"`+|\*+|_+")
_TICKS = re.compile(r"`+")


def draft_markdown(text: str) -> str:
    """``markdown_text`` of a reply still being written: an emphasis or code span it opened
    and has not closed yet is closed ("The grace period is **45 sec" is drawn bold, not after a
    literal "**"), and a marker with nothing after it yet is held back ("is **" draws "is")."""
    start = _last_block(text)
    if start is None:  # inside a fenced code block: Markdown closes it at the end
        return markdown_text(text)
    return markdown_text(text[:start] + _spans_closed(text[start:]))


def _last_block(text: str) -> int | None:
    """Where the block that ``text`` ends in starts (a span still open can only be open
    there), or None when ``text`` ends inside a fenced code block."""
    start = offset = 0
    fence = ""
    for line in text.splitlines(keepends=True):
        match = _CODE_FENCE.match(line)
        run = match.group(1) if match else ""
        if fence and run[:1] == fence[0] and len(run) >= len(fence) and not line[
                match.end():].strip():  # the closing fence: a bare run at least as long
            fence, start = "", offset + len(line)
        elif not fence and match:
            fence = match.group(1)
        elif not fence and (not line.strip() or _BLOCK_LINE.match(line)):
            start = offset + (0 if line.strip() else len(line))
        offset += len(line)
    return None if fence else start


def _spans_closed(block: str) -> str:
    """``block`` with the emphasis and code spans it leaves open closed, in order (CommonMark's
    delimiter rules, simplified: a run opens only where it cannot also close, so "5*3" is none)."""
    opened: list[list] = []  # [mark, start, length still open]
    i = 0
    while i < len(block):
        mark = block[i]
        if mark == "\\":
            i += 2
            continue
        if mark not in "`*_":
            i += 1
            continue
        end = _MARK_RUN.match(block, i).end()
        if mark == "`":
            closing = _closing_ticks(block, end, end - i)
            if closing is None:  # open: closed after what it holds, held back if it holds none
                if block[end:].strip():
                    return _closers_added(block + block[i:end], opened)
                return _closers_added(block[:i], opened)
            i = closing
            continue
        _delimiter_run(block, i, end, opened)
        i = end
    return _closers_added(block, opened)


def _delimiter_run(block: str, start: int, end: int, opened: list[list]) -> None:
    """Close what the run of "*" or "_" at ``block[start:end]`` can close, and open with the
    rest; a run at the end that closes nothing is held back (the next chunk decides)."""
    mark, left, right = block[start], *_flanking(block, start, end)
    closes = right and (mark == "*" or not left or _is_mark(block[end:end + 1]))
    length = end - start
    while closes and length and any(o[0] == mark for o in opened):
        while opened[-1][0] != mark:
            opened.pop()  # an opener crossed by this closer stays literal, as in the whole text
        used = min(length, opened[-1][2])
        length -= used
        opened[-1][2] -= used
        if not opened[-1][2]:
            opened.pop()
    if length and end == len(block):
        opened.append([mark, end - length, 0])  # nothing after it yet: held back
    elif length and left and not right:
        opened.append([mark, end - length, length])


def _closers_added(text: str, opened: list[list]) -> str:
    while opened and (not opened[-1][2] or not text[opened[-1][1] + opened[-1][2]:].strip()):
        mark, start, length = opened.pop()  # a marker with nothing after it: held back
        text = text[:start] + text[start + (length or len(text) - start):]
    closers = "".join(mark * length for mark, _, length in reversed(opened))
    body = text.rstrip()  # a closer after a space would close nothing
    return body + closers + text[len(body):]


def _closing_ticks(block: str, start: int, count: int) -> int | None:
    """The end of the first run of exactly ``count`` backticks from ``start``, if any."""
    for match in _TICKS.finditer(block, start):
        if len(match.group()) == count:
            return match.end()
    return None


def _flanking(block: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether the delimiter run ``block[start:end]`` is left- and right-flanking."""
    before = block[start - 1] if start else " "
    after = block[end] if end < len(block) else " "
    left = not after.isspace() and (not _is_mark(after) or before.isspace() or _is_mark(before))
    right = not before.isspace() and (not _is_mark(before) or after.isspace() or _is_mark(after))
    return left, right


def _is_mark(char: str) -> bool:
    """Punctuation or a symbol, as CommonMark's flanking rules count them."""
    return bool(char) and unicodedata.category(char)[0] in "PS"


def source_label(number: int, scored: Any, *, note: str = "", advanced: bool = False) -> str:
    """'1. zta.pdf · page 12' (file and page when known), the search's score under
    ``advanced`` ('· score 0.812'), then ``note``.

    ``note`` says what the answer did with the source ("quoted in the answer", "no supporting
    passage found": ``SourceUse.note``).
    """
    parts = [f"{number}. {scored.file_name or scored.node.ref_doc_id or 'unknown source'}"]
    if scored.page:
        parts.append(f"page {scored.page}")
    if scored.score is None:
        parts.append("added as context")
    elif advanced:
        parts.append(f"score {scored.score:.3f}")
    if note:
        parts.append(note)
    return " · ".join(parts)


def counted(count: int, noun: str, plural: str = "") -> str:
    """'1 file', '3 files', '2 summaries' (``plural`` when adding "s" will not do): a count and
    its noun as a person writes them, never 'file(s)'."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def hidden_sources_label(count: int) -> str:
    """'3 more sources': the sources below the relevance floor, not listed until asked for."""
    return f"{count} more source{'' if count == 1 else 's'}"


def human_size(size: int | float | None) -> str:
    """Bytes as '12.3 MB'."""
    if size is None:
        return "?"
    value = float(size)
    for unit in ("bytes", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def download_progress(progress: Any) -> str:
    """A model download's progress (``ollama_models.PullProgress``) as one line for its bar."""
    if progress.done:
        return "Downloaded."
    if progress.status.startswith("pulling ") and progress.total:
        return (f"Downloading: {gigabytes(progress.completed, 2)} of "
                f"{gigabytes(progress.total, 2)} ({progress.fraction:.0%})")
    return progress.status[:1].upper() + progress.status[1:] + "…"


def model_rows(models: Any) -> list[dict[str, Any]]:
    """An Ollama's models (``ollama_models.OllamaModel``) as table rows with readable sizes."""
    return [{"model": m.name, "size": gigabytes(m.size, 1) if m.size else "?",
             "parameters": m.parameters, "quantization": m.quantization} for m in models]


def gigabytes(size: int, digits: int) -> str:
    """Bytes as '4.7 GB' in powers of 1000, as Ollama and its model library show model sizes."""
    return f"{size / 1e9:.{digits}f} GB"


def parse_iso(value: str) -> datetime | None:
    """An aware datetime from an ISO-8601 string (naive ones are taken as UTC); None if bad."""
    try:
        moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def friendly_date(value: str, *, now: datetime | None = None) -> str:
    """``value`` (ISO-8601) as "today 14:05", "yesterday 09:12", "3 Nov" or "3 Nov 2025"."""
    moment = parse_iso(value)
    if moment is None:
        return str(value or "")
    now = (now or datetime.now(timezone.utc)).astimezone()
    local = moment.astimezone(now.tzinfo)
    if local.date() == now.date():
        return f"today {local:%H:%M}"
    if local.date() == (now - timedelta(days=1)).date():
        return f"yesterday {local:%H:%M}"
    if local.year == now.year:
        return f"{local.day} {local:%b}"
    return f"{local.day} {local:%b %Y}"


# -- Copy: a reply as shown, in plain text with its sources as footnotes ----------------------

_LINKED_MARKER = re.compile(r"\[\[(\d+)\]\]\([^)\s]*\)")  # [[1]](#chat-3-source-1)
_COPIED_MARKER = re.compile(r"\[(\d+)\]")
_STRONG = re.compile(r"\*\*(.+?)\*\*|__(.+?)__", re.DOTALL)
# "[_The Rust Edition Guide_][edition-guide]" (a reference-style link; "[1][2]" are markers)
_REFERENCE_LINK = re.compile(r"\[(?!\d+\])([^\]\n]+)\]\[[^\]\n]*\]")
_INLINE_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]*)\)")
_EMPHASIS = re.compile(r"(?<![\w\\])([*_])(?=\S)(.+?)(?<=\S)\1(?!\w)")
_CODE = re.compile(r"`([^`\n]+)`")
_FENCE = re.compile(r"^[ \t]*(```|~~~).*\n?", re.MULTILINE)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()<>#+\-.!|~$])")


def plain_reply(shown: str) -> str:
    """``shown`` without Markdown: markers become ``[1]``, links their text (a web address
    kept in brackets), code, bold and italics their words, escapes their character."""
    text = _LINKED_MARKER.sub(r"[\1]", shown)
    text = _REFERENCE_LINK.sub(r"\1", text)
    text = _INLINE_LINK.sub(lambda m: _link_text(m.group(1), m.group(2)), text)
    text = _FENCE.sub("", _CODE.sub(r"\1", text))
    text = _STRONG.sub(lambda m: m.group(1) or m.group(2), text)
    return _ESCAPED.sub(r"\1", _EMPHASIS.sub(r"\2", text)).strip()


def _link_text(words: str, target: str) -> str:
    """A link's words, with its address when it leads out of the page (not "#source-1")."""
    return f"{words} ({target})" if target.startswith(("http://", "https://")) else words


def copied_text(shown: str, listing: SourceListing | None,
                places: Mapping[int, str] | None = None) -> str:
    """The reply ``shown`` as plain text, then a footnote per source it cites ("[1] memo.pdf,
    page 3"); a reply citing none lists the sources shown under it, numbered as on screen.
    ``places``: where in its file a source without a page is, by number ("section “Setup”")."""
    text = plain_reply(shown)
    if listing is None:
        return text
    sources = {s.number: s for s in (*listing.shown, *listing.hidden)}
    found = dict.fromkeys(int(m) for m in _COPIED_MARKER.findall(text))
    cited = [n for n in found if n in sources]
    numbers = cited or [s.number for s in listing.shown]
    if not numbers:
        return text
    where = places or {}
    notes = [f"[{n}] {copied_label(sources[n].scored, where.get(n, ''))}" for n in sorted(numbers)]
    return text + "\n\n" + "\n".join(notes)


def copied_label(scored: ScoredNode, place: str = "") -> str:
    """A source as a footnote names it: its file (or document id), and its page or else
    ``place`` (the section it is in: ``passage.section``), when known."""
    label = scored.file_name or scored.node.ref_doc_id or "a passage"
    where = f"page {scored.page}" if scored.page else place
    return f"{label}, {where}" if where else label
