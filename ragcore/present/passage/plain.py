"""A passage as one run of plain text, for an excerpt: its Markdown's marks dropped, its words kept.

``markup`` renders a whole passage (headings, lists, code blocks drawn as such); an excerpt (the
passages listed while an answer is made, a retriever's hits, the CLI's passages) is one line,
where "## Build", "**bold**", backticks, "- " list markers, a "```toml" fence or a
'<span class="filename">' tag would show as written. Here they go
(``readers.markdown.readable`` turns the HTML into its text): headings, quote marks, fences,
rules, table pipes, emphasis, code marks, links and images (their words or alt text kept); a
bullet becomes "•", so the items stay apart. Ordered lists keep their numbers ("1. Install
2. Run"): they are words a reader needs. Snake_case and "2 * 3" are not emphasis.
"""

from __future__ import annotations

import re

from ...readers.markdown.readable import readable_markdown

# a fence's marks and language ("```toml"); a passage cut with "…" may go on after them
_FENCE = re.compile(r"^[ \t]*(?:`{3,}|~{3,})[\w+.-]*", re.MULTILINE)
# a setext underline, a rule, a table's separator row: lines of marks only
_MARKS_LINE = re.compile(r"^[ \t]*(?:[=\-*_]{3,}|\|?(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*:?-*:?)[ \t]*$",
                         re.MULTILINE)
# what opens a line: quote marks, a heading's hashes; a bullet becomes "•" (the items stay
# apart in one run of text), an ordered list keeps its numbers
_LINE_START = re.compile(r"^[ \t]*(?:>[ \t]?)*(?:#{1,6}(?=[ \t]|$))?[ \t]*", re.MULTILINE)
_BULLET = re.compile(r"^[-*+][ \t]+", re.MULTILINE)
_BULLETED_NUMBER = re.compile(r"^[-*+][ \t]+(?=\d{1,3}[.)][ \t])", re.MULTILINE)
_IMAGE = re.compile(r"!\[([^\]\n]*)\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]+)\](?:\([^)\n]*\)|\[[^\]\n]*\])")
_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_EMPHASIS = re.compile(r"(?<![\w\\*_])(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1(?![\w*_])", re.DOTALL)
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()<>#+\-.!|~$])")


def plain_text(text: str) -> str:
    """``text`` (a passage, Markdown or not) as one run of plain text: its Markdown marks
    dropped, its whitespace collapsed."""
    # fences first: one a cut passage runs on after ("``` … See") is no fence to Markdown,
    # so what follows would be taken for code and keep its HTML
    text = readable_markdown(_FENCE.sub("", text))
    text = _MARKS_LINE.sub("", text)
    text = _BULLETED_NUMBER.sub("", _LINE_START.sub("", text))  # "• 1." would say it twice
    text = _BULLET.sub("\u2022 ", text).replace("|", " ")
    text = _LINK.sub(r"\1", _IMAGE.sub(r"\1", text))
    text = _CODE.sub(lambda m: m.group(2).strip(), text)
    for _ in range(2):  # "***both***", "**a _b_ c**"
        text = _EMPHASIS.sub(r"\2", text)
    return " ".join(_ESCAPED.sub(r"\1", text).split())
