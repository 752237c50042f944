"""Markdown as people and models read it: without the HTML and mdBook markup of its source.

The reader keeps a Markdown file as written (a passage's offsets locate it in the file), so the
HTML it holds would reach the reader of a passage as written: the Rust book's "<!--
manual-regeneration … -->" notes, '<Listing number="2-1" file-name="src/main.rs" caption="…">'
frames, "<span class=\\"filename\\">Filename: src/main.rs</span>" and mdBook's "{{#rustdoc_include
…}}". Passages are rendered with raw HTML switched off (a document must never inject markup) and
the model copies what it reads ("<span" in an answer). Here, outside code blocks and code
spans, comments are dropped, a listing frame becomes its caption ("**Listing 2-1:** …
(src/main.rs)"), an include (in a code block too) names the file it would show, an image its alt
text, and other HTML tags go, their text kept; a reference link whose definition the passage does
not hold ("[the guessing game][guessing]") is its words. Characters matched by ``hidden`` (the
renderer's highlight markers) are kept, in order, wherever the text around them is removed.
"""

from __future__ import annotations

import html
import re
from typing import Callable, Pattern

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
# What a tag holds: quoted values may hold "<" and ">" (caption="… `Option<i32>`").
_INSIDE = r'(?:"[^"]*"|[^<>"])*'
_TAG_OR_CODE_SPAN = re.compile(rf"<!--.*?-->|</?[A-Za-z]{_INSIDE}>"
                               r"|(`+)(?:(?!\n[ \t]*\n)[^`])*?\1", re.S)  # within a paragraph
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_COMMENT_TAIL = re.compile(r"\A(?:(?!<!--).)*?-->", re.S)
_INCLUDE = re.compile(r"\{\{#(?:rustdoc_include|include|playground)\s+([^}\s]+)[^}]*\}\}")
_LISTING = re.compile(rf"<Listing\b({_INSIDE})>", re.I)
_IMAGE = re.compile(rf"<img\b({_INSIDE})>", re.I)
_ATTRIBUTE = re.compile(r"([\w-]+)\s*=\s*\"([^\"]*)\"")
# HTML elements seen in Markdown documents; "<T>" or "<String>" in prose is left alone.
_TAGS = ("a|abbr|b|br|caption|center|code|dd|del|details|div|dl|dt|em|figcaption|figure|font|h[1-6]"
         "|hr|i|ins|kbd|li|listing|mark|ol|p|pre|s|samp|small|span|strong|sub|summary|sup|table"
         "|tbody|td|th|thead|tr|u|ul|var")
_TAG = re.compile(rf"</?(?:{_TAGS})\b{_INSIDE}>", re.I)
# A comment or an HTML tag: markup whose words no reader of the passage sees (quotes skip them).
HTML_MARKUP = re.compile(rf"<!--.*?-->|{_TAG.pattern}", re.I | re.S)
_CODE_SPAN_OR_MARKUP = re.compile(rf"(`+).*?\1|{HTML_MARKUP.pattern}", re.I | re.S)
# "[the guessing game][guessing]": a link to a definition elsewhere in the file (the Rust
# book's cross-references), which a passage without that definition would show as written.
_REFERENCE = re.compile(r"(?<![\]\w\\])\[((?:[^\[\]\n]|\n(?![ \t]*\n))+)\]"  # not "a[0][1]"
                        r"\[([^\[\]\n]*)\](?![(:])")
_DEFINITION = re.compile(r"^[ ]{0,3}\[([^\]\n]+)\]:", re.M)


def readable_markdown(text: str, *, hidden: Pattern[str] | None = None) -> str:
    """``text`` with HTML comments, tags and mdBook includes turned into readable text, code
    blocks and code spans left as written."""
    keep = _keeper(hidden)
    parts = _parts(text, hidden)
    if parts and not parts[0][1]:  # a passage cut inside a comment starts with its tail
        parts[0] = (_COMMENT_TAIL.sub(lambda m: keep(m.group(), ""), parts[0][0]), False)
    bare = hidden.sub("", text) if hidden else text
    defined = {_label(label) for label in _DEFINITION.findall(bare)}
    return "".join(_includes(part, keep) if code else _clean(part, keep, defined)
                   for part, code in parts)


def without_tags(text: str) -> str:
    """``text`` (a sentence quoted out of a passage) without its HTML tags and comments, the
    tags' text kept, code spans as written: "types <kbd>5</kbd>" reads "types 5"."""
    return _CODE_SPAN_OR_MARKUP.sub(lambda m: m.group() if m.group(1) else "", text)


def _includes(code: str, keep: Callable[[str, str], str]) -> str:
    """An include inside a code block: the code it stands for is not in the document."""
    return _INCLUDE.sub(lambda m: keep(m.group(), _included(m.group(1)).strip("*")), code)


def _clean(text: str, keep: Callable[[str, str], str], defined: set[str]) -> str:
    text = _COMMENT.sub(lambda m: keep(m.group(), ""), text)
    text = _REFERENCE.sub(lambda m: _linked(m, keep, defined), text)
    text = _INCLUDE.sub(lambda m: keep(m.group(), _included(m.group(1))), text)
    text = _LISTING.sub(lambda m: keep(m.group(), _listing(m.group(1))), text)
    text = _IMAGE.sub(lambda m: keep(m.group(), _attributes(m.group(1)).get("alt", "")), text)
    return _TAG.sub(lambda m: keep(m.group(), ""), text)


def _linked(match: re.Match, keep: Callable[[str, str], str], defined: set[str]) -> str:
    """A reference link as its words, unless the passage defines where it goes."""
    words, label = match.group(1), match.group(2)
    if _label(label or words) in defined:
        return match.group()
    return keep(f"[][{label}]", words)


def _label(text: str) -> str:
    return " ".join(text.split()).casefold()


def _keeper(hidden: Pattern[str] | None) -> Callable[[str, str], str]:
    def keep(removed: str, replacement: str) -> str:
        return replacement + ("".join(hidden.findall(removed)) if hidden else "")
    return keep


def _parts(text: str, hidden: Pattern[str] | None) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is code) runs: fenced blocks, then code spans outside them."""
    parts: list[tuple[str, bool]] = []
    prose: list[str] = []
    fence = ""
    for line in text.splitlines(keepends=True):
        bare = hidden.sub("", line) if hidden else line
        match = _FENCE.match(bare)
        if fence or match:
            if not fence:
                parts.extend(_spans("".join(prose)))
                prose = []
            parts.append((line, True))
            if match and fence and match.group(1).startswith(fence):
                fence = ""
            elif match and not fence:
                fence = match.group(1)
            continue
        prose.append(line)
    parts.extend(_spans("".join(prose)))
    return parts


def _spans(text: str) -> list[tuple[str, bool]]:
    """Code spans of ``text``; a backtick inside a comment or tag ('caption="…`Hello`"') is not
    one."""
    parts, position = [], 0
    for match in _TAG_OR_CODE_SPAN.finditer(text):
        if not match.group(1):
            continue
        parts += [(text[position:match.start()], False), (match.group(), True)]
        position = match.end()
    return [*parts, (text[position:], False)]


def _attributes(text: str) -> dict[str, str]:
    return {k.lower(): html.unescape(v) for k, v in _ATTRIBUTE.findall(text)}


def _listing(attributes: str) -> str:
    found = _attributes(attributes)
    title = f"**Listing {found['number']}:**" if "number" in found else "**Listing:**"
    caption = found.get("caption", "")
    where = f" ({found['file-name']})" if "file-name" in found else ""
    return f"{title} {caption}{where}".replace("  ", " ").rstrip()


def _included(path: str) -> str:
    file = path.split(":")[0].rstrip("/")
    shown = "/".join(file.split("/")[-3:])
    return f"*(code from {shown})*"
