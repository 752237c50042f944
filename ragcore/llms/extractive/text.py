"""The sentences the extractive answerer may quote: passages cut into sentences, debris left out.

``candidates(context)`` splits a prompt's context into its passages (each starts at a block of
metadata lines such as ``file_name: x.pdf``), the passages into blocks (paragraphs, list items,
option lines of help text) and the blocks into sentences. What a reader would not take for an
answer is never a candidate: headings (Markdown ``#``, reST underlines, short title-case or ALL
CAPS lines, numbered section titles glued to the paragraph under them by a PDF reader), code
(fenced, reST literal blocks, lines dense with symbols), table rows, usage synopses
("Usage: tar [OPTION...] [FILE]..."), figure captions, contents lines, boilerplate (copyright
lines, bare URLs, a PDF's page header) and what ``debris`` finds: filler that
announces rather than says ("The five Functions are defined below."), table rows a PDF reader
ran together, reference entries. Unlike ``lexical.split_sentences`` (plain sentences for scoring
elsewhere), a candidate keeps what surrounds it: the heading it sits under (and its section),
the sentence before it when it refers back ("This is where ..."), the list it introduces and,
for a list item, that list's lead-in (``lead``), so the ranker can read it in context and the
answer can quote a list whole under the sentence that introduces it (``list_unit``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...search.lexical import is_metadata_line, is_prose, split_sentences
from .debris import is_debris, is_filler

_FENCE = re.compile(r"^\s*(```|~~~)")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+_])\1{2,}\s*$")
_MD_HEADING = re.compile(r"^\s*#{1,6}\s+")
_DIRECTIVE = re.compile(r"^\s*\.\.\s+(?:[\w-]+::|_|\|)")
_FOOTNOTE = re.compile(r"^\s*\.\.\s+\[[^\]]+\]\s*")
LIST_ITEM = re.compile(
    r"^\s*(?:[-*+\u2022\u25aa\u25cf\uf0b7\u2013]|\(?\d{1,2}[.)]|\(?[a-z][.)])\s+"
)
_OPTION_LINE = re.compile(r"^\s*--?[A-Za-z0-9]")
_COMMAND_LINE = re.compile(r"^\s*(?:\$\s+)?[a-z][\w.-]*\s+--?[A-Za-z]")  # "tar -cf a.tar x"
_COLUMNS = re.compile(r"\S\s{3,}\S")
_QUOTE_MARK = re.compile(r"^\s*>\s?")
_TAG_LINE = re.compile(r"^\s*(?:</?[A-Za-z][\w-]*(?:\s[^<>]*)?>\s*)+$")
_INLINE_MARKUP = re.compile(r"<!--.*?-->|\{\{#[^}]*\}\}")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_INLINE_CODE = re.compile(r"``?[^`]+``?")
_NUMBERED_TITLE = re.compile(r"^(?:[A-Z]\.|\d+(?:\.\d+)*\.?|[IVX]+\.)\s+[A-Z0-9]")
_CAPTION = re.compile(
    r"^(?:Figure|Fig\.|Table|Listing|Exhibit)\s+[\dA-Z][\w.-]*(?:[:.]|\s+[-\u2013\u2014]\s)", re.I)
_LEADER = re.compile(r"(?:\.\s?){4,}\s*[\divxlc]*\s*$")  # "2.0 Framework Basics ........ 6"
_PAGE_HEADER = re.compile(r"available free of charge from", re.I)  # NIST's, atop each page
_SYNOPSIS = re.compile(r"^\s*(?:usage|synopsis)\s*:", re.I)
_OPTION_GROUP = re.compile(r"\[[^\]]{0,30}\]")
_WORDS = re.compile(r"[^\W\d_]{3,}")
WORDY = 12  # a sentence with this many words (most of its tokens) is prose, whatever its symbols
_BOILERPLATE = re.compile(
    r"\bcopyright\b|\u00a9|all rights reserved|available free of charge|"
    r"^\s*page \d+( of \d+)?\b|^\s*(?:https?://|www\.|doi:)\S*\s*$", re.I
)
_ENDS_SENTENCE = re.compile(r"[.!?:;\"'\u201d\u2019)]\s*$")
_CODE_CHARS = set("{}();=<>[]|\\$&*/#@")
_ORDINAL = re.compile(
    r"^(?:and\s+)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
    r"finally|lastly|\d{1,2}[.)])\b", re.I
)
# A sentence that starts like this, or names "this/these ..." thing, refers to the one before
# ("And I did that 4 days ago" continues the sentence before it).
_REFERS_BACK = re.compile(
    r"^(?:this|that|these|those|it|its|he|she|they|his|her|their|such|there|and|but|so|yet|"
    r"also|however|therefore|thus)\b|\b(?:this|these|those|such)\s+\w+", re.I
)
# ... and cannot be quoted without it.
_STARTS_WITH_REFERENCE = re.compile(
    r"^(?:this|that|these|those|it|he|she|they|his|her|their)\b|"
    r"^(?:and|but|so|yet)\s+(?:\w+\s+){0,3}(?:this|that|these|those|it)\b|"
    r"^(?:\S+\s+){1,3}(?:this|these|those)\s+\w+", re.I
)
_LITERAL_DIRECTIVES = ("code", "code-block", "sourcecode", "literalinclude", "highlight",
                       "math", "productionlist", "doctest", "testcode", "toctree", "image",
                       "figure", "raw", "csv-table", "list-table", "table")
MAX_CANDIDATES = 400
LEAD_SENTENCES = 2  # sentences after a heading that read as its definition
MAX_LIST_ITEMS = 12
ITEM_END_SHARE = 0.9  # proportional fonts: a full line may be this much shorter than the longest
MAX_WRAPPED = 140  # a longer line is not wrapped text (a URL, a table, one line per paragraph)


@dataclass(slots=True)
class Candidate:
    """A quotable sentence and what surrounds it in its passage."""

    text: str
    passage: int
    position: int  # index among all candidates of the context
    item: bool = False  # a list item
    heading: str = ""  # the title it sits under, when it is among the first sentences there
    topic: str = ""  # what its whole passage is about: the file's name and title
    source: str = ""  # the file its passage comes from, when the prompt names it
    previous: int | None = None  # the sentence it refers back to ("This ...", "these rules")
    followers: list[int] = field(default_factory=list)  # the list it introduces
    lead: int | None = None  # for a list item: the sentence that introduces its list
    section: str = ""  # the last heading above it in its passage ("" before the first)
    part: int = 0  # its place among the sentences of its paragraph or list item

    @property
    def starts_with_reference(self) -> bool:
        """Whether the sentence cannot be understood without the one before ("This is ...")."""
        return bool(_STARTS_WITH_REFERENCE.match(self.text))


@dataclass(slots=True)
class Passage:
    """One source's text within a context, with the file it came from when the prompt says."""

    text: str
    file_name: str = ""
    title: str = ""

    @property
    def topic(self) -> str:
        """The words of the file's name and title ("tar-help.txt" -> "tar help")."""
        stem = self.file_name.rsplit(".", 1)[0] if "." in self.file_name else self.file_name
        spaced = _CAMEL.sub(" ", re.sub(r"[\W_]+", " ", stem))
        return f"{spaced} {self.title}".strip()


def split_passages(context: str) -> list[Passage]:
    """The passages of a context: each block of metadata lines starts a new one."""
    passages: list[Passage] = []
    lines: list[str] = []
    header: dict[str, str] = {}
    in_header = False
    for line in context.splitlines():
        if is_metadata_line(line.strip()):
            if not in_header:
                _add_passage(passages, lines, header)
                lines, header = [], {}
            in_header = True
            key, _, value = line.strip().partition(":")
            header[key.strip()] = value.strip()
            continue
        in_header = False
        lines.append(line)
    _add_passage(passages, lines, header)
    return passages


def _add_passage(passages: list[Passage], lines: list[str], header: dict[str, str]) -> None:
    text = "\n".join(lines)
    if text.strip():
        passages.append(Passage(text, header.get("file_name", ""), header.get("title", "")))


def candidates(*contexts: str) -> list[Candidate]:
    """Every quotable sentence of the contexts, in order, linked to its heading, the sentence
    it refers back to and the list it introduces (passages are numbered across contexts)."""
    found: list[Candidate] = []
    passages = [p for context in contexts for p in split_passages(context)]
    for number, passage in enumerate(passages):
        heading, since_heading, last = "", 0, None
        for text, kind in _blocks(passage.text):
            if kind == "heading":
                if not (_CAPTION.match(text) or _LEADER.search(text)):  # figure, contents
                    heading, since_heading = text, 0
                continue
            for part, sentence in enumerate(split_sentences(text)):
                if len(found) >= MAX_CANDIDATES:
                    break
                if not is_quotable(sentence) or is_filler(sentence) or is_debris(sentence):
                    last = None  # "These ..." after it refers to something not quoted
                    continue
                cand = Candidate(sentence, number, len(found), item=kind == "item",
                                 heading=heading if since_heading < LEAD_SENTENCES else "",
                                 topic=passage.topic, section=heading,
                                 source=passage.file_name, part=part)
                if last is not None and _REFERS_BACK.search(sentence):
                    cand.previous = last
                found.append(cand)
                last, since_heading = cand.position, since_heading + 1
    _link_lists(found)
    return found


def quote_unit(cands: list[Candidate], i: int, *, elaborate: bool = False) -> list[int]:
    """The sentences to quote for candidate ``i`` so it reads on its own, in order: the ones it
    refers back to ("This is where ...", two steps back at most), itself, and with
    ``elaborate`` the next one when that refers back to it ("... are called unreserved. These
    include ..."). Its list is quoted separately."""
    unit = [i]
    while len(unit) < 3 and cands[unit[0]].starts_with_reference:
        previous = cands[unit[0]].previous
        if previous is None:
            break
        unit.insert(0, previous)
    nxt = i + 1
    if elaborate and nxt < len(cands) and cands[nxt].previous == i and not cands[i].followers:
        if cands[nxt].starts_with_reference:
            unit.append(nxt)
    return unit


def list_unit(cands: list[Candidate], i: int) -> tuple[list[int], list[int]]:
    """The whole list ``i`` belongs to, to quote it as a unit: (the introducing sentence's
    ``quote_unit``, the items), when ``i`` introduces a list or is one of its items; else
    (``quote_unit`` of ``i``, no items)."""
    lead = cands[i].lead if cands[i].lead is not None else i
    return quote_unit(cands, lead), list(cands[lead].followers)


def is_quotable(sentence: str) -> bool:
    """False for code, table debris, usage synopses, captions and boilerplate."""
    if not is_prose(sentence) or _BOILERPLATE.search(sentence) or _CAPTION.match(sentence):
        return False
    if _SYNOPSIS.match(sentence) or sentence.count("|") >= 2:  # a table row
        return False
    words = _WORDS.findall(sentence)
    if len(words) >= WORDY and len(words) >= 0.6 * len(sentence.split()):
        return True  # prose with brackets: "Chopin (/ˈʃoʊpæn/; [fʁe.de.ʁik]; 1810 – 1849)"
    if len(_OPTION_GROUP.findall(sentence)) >= 2:
        return False
    plain = _INLINE_CODE.sub("code", sentence)
    visible = [c for c in plain if not c.isspace()]
    return sum(c in _CODE_CHARS for c in visible) <= 0.08 * len(visible)


def is_heading(line: str, *, alone: bool) -> bool:
    """Whether a line is a title: short, unpunctuated, and numbered, title case or ALL CAPS.

    ``alone``: nothing follows the line in its paragraph, so any short unpunctuated line counts.
    """
    line = line.strip()
    words = line.split()
    if not words or len(words) > 12 or _ENDS_SENTENCE.search(line):
        return False
    letters = [c for c in line if c.isalpha()]
    if len(letters) >= 4 and all(c.isupper() for c in letters):
        return True
    if _NUMBERED_TITLE.match(line):
        return True
    long_words = [w for w in words if len(w) > 3 and w[0].isalpha()]
    titled = long_words and sum(w[0].isupper() for w in long_words) >= 0.75 * len(long_words)
    return bool(titled) or alone


def _blocks(text: str) -> list[tuple[str, str]]:
    """``(text, kind)`` of each paragraph, list item ("item") and title ("heading")."""
    blocks: list[tuple[str, str]] = []
    current: list[str] = []
    kind = "prose"

    def flush(next_kind: str = "prose") -> None:
        nonlocal current, kind
        if current:
            blocks.append((" ".join(" ".join(current).split()), kind))
        current, kind = [], next_kind

    lines = _clean_lines(text)
    width = _line_width([line for line, _ in lines])
    for i, (line, what) in enumerate(lines):
        nxt = lines[i + 1][0] if i + 1 < len(lines) else ""
        if kind == "item" and current and _item_ended(current[-1], line, width):
            flush()  # a PDF bullet's last line ended short: this line starts a paragraph
        if what == "heading" or (line.strip() and _UNDERLINE.match(nxt)):
            flush()
            blocks.append((line.strip(), "heading"))
        elif what == "break" or not line.strip() or _UNDERLINE.match(line):
            flush()
        elif what == "line":
            flush()
            blocks.append((line, "prose"))
        elif LIST_ITEM.match(line) or _OPTION_LINE.match(line) or _COLUMNS.search(line.strip()):
            flush("item")
            current = [LIST_ITEM.sub("", line).strip()]
        elif _starts_anew(current) and _is_title_line(line, nxt):
            flush()
            blocks.append((line.strip(), "heading"))
        else:
            current.append(line.strip())
    flush()
    return blocks


def _line_width(lines: list[str]) -> int:
    """The width text was wrapped at (its longest line), 0 when too few lines tell."""
    lengths = [len(line) for line in lines if 20 < len(line.strip()) <= MAX_WRAPPED]
    return max(lengths) if len(lengths) >= 5 else 0


def _item_ended(last: str, line: str, width: int) -> bool:
    """Whether a list item ended at ``last``: wrapped text whose line ends a sentence although
    the next line's first word would have fit on it (PDF readers lose the indent that tells
    a bullet's continuation lines from the paragraph after the list)."""
    if not width or not _ENDS_SENTENCE.search(last) or not line.strip()[:1].isupper():
        return False
    return len(last) + 1 + len(line.split()[0]) <= ITEM_END_SHARE * width


def _starts_anew(current: list[str]) -> bool:
    """Whether the next line begins a sentence: the block is empty or its text ended one."""
    return not current or bool(_ENDS_SENTENCE.search(current[-1]))


def _is_title_line(line: str, nxt: str) -> bool:
    """A heading line: a title by its look, not running on into a lower-case next line."""
    follows = nxt.strip()
    if follows and not (follows[:1].isupper() or follows[:1] in "[0123456789"
                        or LIST_ITEM.match(nxt)):
        return False
    return is_heading(line, alone=not follows)


def _starts_in_code(lines: list[str]) -> bool:
    """Whether a passage begins inside a fenced code block (chunks are cut anywhere).

    With an odd number of fences one of them has no partner; when the first is a bare fence
    with no sentence before it, it is the one closing a block the passage began inside.
    """
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    if len(fences) % 2 == 0 or lines[fences[0]].strip() not in ("```", "~~~"):
        return False
    return not any(_ENDS_SENTENCE.search(line) and is_quotable(line.strip())
                   for line in lines[: fences[0]])


def _clean_lines(text: str) -> list[tuple[str, str]]:
    """``(line, what)`` without markup: what is "text", "heading", "line" (a line of a reST
    literal block that reads as a sentence, such as the Zen of Python's: a block of its own),
    or "break" (code, tags)."""
    raw_lines = text.splitlines()
    out: list[tuple[str, str]] = []
    fenced = _starts_in_code(raw_lines)
    literal_indent: int | None = None
    for raw in raw_lines:
        line = _INLINE_MARKUP.sub("", _QUOTE_MARK.sub("", raw)).rstrip()
        indent = len(line) - len(line.lstrip())
        if _FENCE.match(line):
            fenced = not fenced
            out.append(("", "break"))
        elif fenced:
            out.append(("", "break"))
        elif literal_indent is not None and (indent > literal_indent or not line):
            prose = _ENDS_SENTENCE.search(line) and is_quotable(line.strip())
            out.append((line.strip(), "line") if prose else ("", "break"))
        elif _MD_HEADING.match(line):  # or, indented or a sentence, a comment in code
            literal_indent = None
            title = not indent and not line.endswith((".", ":"))
            text = _MD_HEADING.sub("", line).strip(" #")
            out.append((text, "heading") if title else ("", "break"))
        elif _COMMAND_LINE.match(line) or _PAGE_HEADER.search(line):
            out.append(("", "break"))
        elif _DIRECTIVE.match(line) or _TAG_LINE.match(line):
            name = line.strip()[3:].split("::")[0].strip()
            literal_indent = indent if name in _LITERAL_DIRECTIVES else None
            out.append(("", "break"))
        elif line.endswith("::") and not line.lstrip().startswith(".."):
            literal_indent = indent  # reST: "Example::" introduces an indented literal block
            out.append((line[:-1], "text"))
        else:
            literal_indent = None
            out.append((_FOOTNOTE.sub("", line), "text"))
    return out


def _link_lists(found: list[Candidate]) -> None:
    """Link each sentence that introduces a list to the items (or ordinal steps) after it."""
    for i, cand in enumerate(found):
        window = [c for c in found[i + 1 : i + 1 + 4 * MAX_LIST_ITEMS]
                  if c.passage == cand.passage]
        members = _colon_items(window) if cand.text.rstrip().endswith(":") else []
        items = [c for c in members if c.part == 0 or c.starts_with_reference][:MAX_LIST_ITEMS]
        items = items or _ordinal_steps(cand, window[:MAX_LIST_ITEMS])
        cand.followers = [c.position for c in items]
        for item in members or items:
            if item.lead is None:
                item.lead = cand.position


def _colon_items(window: list[Candidate]) -> list[Candidate]:
    """The sentences of the list items (or ordinal steps: "First - cut costs.") right after a
    colon; the list quotes each item's first sentence and those that lean on it ("These
    Functions are ..."), not all of a long item's explanation."""
    items: list[Candidate] = []
    for cand in window:
        if not (cand.item or _ORDINAL.match(cand.text)):
            break
        items.append(cand)
    return items


def _ordinal_steps(intro: Candidate, window: list[Candidate]) -> list[Candidate]:
    """Sentences starting "First", "Second" ... soon after ``intro`` (two at least)."""
    if _ORDINAL.match(intro.text):
        return []
    steps = [c for c in window if _ORDINAL.match(c.text)]
    if len(steps) < 2 or window.index(steps[0]) > 1:
        return []
    return steps
