"""Citation markers in one format: whatever a model writes becomes ``[1]``, or ``[1] [2]``.

``answer.CITATION_RULES`` asks for ``[N]``; models answer "Source 1.", "(Sources 1, 3)",
"[1, 2]", "[1][2]", "[^1]" or "【1】". This module reads a reply back into the asked format, so
the format is both asked for and enforced in this package. Pure text to text: ``normalise_citations`` takes a
whole reply, ``normalised_citations`` a stream of chunks, holding back only a tail that may still
grow into a marker (the pattern of ``streaming.without_phrases``); however the text is cut into
chunks, the two give the same text.

What counts as a citation (a *group*; groups parted only by spaces make one *run*):

- a bracketed list, "[1]", "[1, 2]", "[^1]", "【1】", "[Source 1]", "[Source: 1]";
- the word "Source(s)" with numbers, "Source 1", "Source 1:", "Sources 1 and 2", "Source 1,
  Source 3", bare or in parentheses, "(Source 1)", "(Sources 1, 3)";
- bare parenthesised numbers, "(1)" or "(1, 2)", only where they read as one: right after a
  word or a sentence (not a number, "Section 3.2 (2)", nor a word such as "Step"), followed by
  punctuation, a line break or the end, never above ``sources``, and with no other "(N)" in the
  same sentence near it ("first (1), second (2)" is a list).

Numbers run from 1 to 999. A run becomes its numbers, each once, as "[1] [2]"; numbers above
``sources`` (when given) are dropped, and a run left empty goes with the spaces before it. A run
standing after a sentence ("**Oslo**. Source 1.") loses the full stop it does not need. Text
normalised once is left as it is (unless a number was dropped: taking one out can bring what
stood around it together, as "Sources [7] 2" becomes "Sources 2").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Iterator

LOOK = 80  # characters a decision may look back (and a bare "(1)" ahead, for a list)
_START = re.compile(r"[ \t\[(\u3010]|(?<!\w)[sS]")  # where a run (or the spaces before it) starts
_CLOSERS = {"[": "]", "\u3010": "\u3011"}
_SPACES = (" ", "\t")
_ENDS = ("", " ", "\t", "\n")  # what may follow a sentence's full stop
_DIGITS = frozenset("0123456789")
_AFTER_BARE = frozenset(".,;:!?\n") | {""}
_SENTENCE_END = re.compile(r"[.!?]\s|\n")
_BARE = re.compile(r"\(\d{1,3}\)")
# A number ("3.2 (2)", "2616 (199)") or a bracket ("[1] (2)", which a second pass would join).
_NOT_CITED_AFTER = _DIGITS | {"]", "\u3011"}
# "Section (2)", "Step (3)": a parenthesised number after these names a part, not a source.
_PART_WORDS = frozenset({
    "appendix", "article", "chapter", "clause", "eq", "equation", "fig", "figure", "item", "line",
    "note", "page", "paragraph", "part", "rule", "section", "step", "table", "§"})


def normalise_citations(text: str, sources: int | None = None) -> str:
    """``text`` with every citation marker written ``[N]`` (see the module docstring)."""
    return _rewrite(text, 0, _checked(sources), final=True)[0]


def normalised_citations(chunks: Iterable[str], *, sources: int | None = None) -> Iterator[str]:
    """The chunks with citation markers written ``[N]``, as ``normalise_citations`` would; only
    text that may still grow into a marker is held back."""
    sources = _checked(sources)
    text, start = "", 0
    for chunk in chunks:
        text += chunk
        out, done = _rewrite(text, start, sources, final=False)
        if out:
            yield out
        cut = max(0, done - LOOK)  # keep what decisions look back at
        text, start = text[cut:], done - cut
    out, _ = _rewrite(text, start, sources, final=True)
    if out:
        yield out


def _checked(sources: int | None) -> int | None:
    if sources is not None and (isinstance(sources, bool) or not isinstance(sources, int)
                                or sources < 0):
        raise ValueError(f"sources ({sources!r}) must be the number of sources given, 0 or "
                         "more, or None when it is not known")
    return sources


class _More(Exception):
    """The text ends before a decision can be made (and more of it is coming)."""


@dataclass(slots=True)
class _Reader:
    """``text`` read by position; past its end, "" if it is ``final``, else ``_More``."""

    text: str
    final: bool

    def at(self, k: int) -> str:
        if k < len(self.text):
            return self.text[k]
        if self.final:
            return ""
        raise _More

    def before(self, k: int) -> str:
        return self.text[max(0, k - LOOK):k]


def _rewrite(text: str, start: int, sources: int | None, *, final: bool) -> tuple[str, int]:
    """``text[start:]`` rewritten (what comes before is only looked back at), and where the
    rewriting stopped: the end, or (unless ``final``) a run that ``text`` ends too soon to tell."""
    reader, out, i = _Reader(text, final), [], start
    while i < len(text):
        found = _START.search(text, i)
        at = found.start() if found else len(text)
        out.append(text[i:at])
        if at == len(text):
            return "".join(out), at
        try:
            piece, i = _run(reader, at, sources)
        except _More:
            return "".join(out), at
        out.append(piece)
    return "".join(out), i


def _run(r: _Reader, i: int, sources: int | None) -> tuple[str, int]:
    """The text from ``i`` (spaces, then a run of groups) rewritten, and where it ends; with no
    run there, the spaces and the character after them as they are."""
    k = _skip_spaces(r, i)
    group = _group(r, k, sources)
    if group is None:
        end = min(k + 1, len(r.text))
        return r.text[i:end], end
    numbers, end = group
    while True:
        while (group := _group(r, _skip_spaces(r, end), sources)) is not None:
            numbers, end = numbers + group[0], group[1]
        if r.at(end) != "." or r.at(end + 1) not in _ENDS or not _after_sentence(r, i):
            break
        end += 1  # "Oslo. Source 1. Source 2." needs no full stops of its own
    kept = [n for n in dict.fromkeys(numbers) if sources is None or n <= sources]
    if not kept:
        return "", end
    return r.text[i:k] + " ".join(f"[{n}]" for n in kept), end


def _group(r: _Reader, k: int, sources: int | None) -> tuple[list[int], int] | None:
    """The numbers of the citation group at ``k``, and its end; None if there is none."""
    c = r.at(k)
    if c in _CLOSERS:
        return _bracketed(r, k, sources)
    if c == "(":
        return _parenthesised(r, k, sources)
    if c in ("s", "S") and not r.before(k)[-1:].isalnum():
        found = _numbers(r, k)
        if found is not None and r.at(found[1]) == ":":  # "Source 1:"
            return found[0], found[1] + 1
        return found
    return None


def _bracketed(r: _Reader, k: int, sources: int | None) -> tuple[list[int], int] | None:
    close = _CLOSERS[r.at(k)]
    j = k + 2 if r.at(k + 1) == "^" else k + 1
    found = _numbers(r, _skip_spaces(r, j))
    if found is None:
        return None
    j = _skip_spaces(r, found[1])
    if r.at(j) != close:
        return None
    if close == "]" and r.at(j + 1) == "(" and _group(r, j + 1, sources) is None:
        return None  # a Markdown link, "[1](https://...)"
    return found[0], j + 1


def _parenthesised(r: _Reader, k: int, sources: int | None) -> tuple[list[int], int] | None:
    first = _skip_spaces(r, k + 1)
    found = _numbers(r, first)
    if found is None:
        return None
    j = _skip_spaces(r, found[1])
    if r.at(j) != ")":
        return None
    if r.at(first) in ("s", "S") or _cites_bare(r, k, j + 1, found[0], sources):
        return found[0], j + 1
    return None


def _cites_bare(r: _Reader, k: int, end: int, numbers: list[int], sources: int | None) -> bool:
    """Whether the bare "(1)" from ``k`` to ``end`` reads as a citation (module docstring)."""
    if sources is not None and max(numbers) > sources or r.at(end) not in _AFTER_BARE:
        return False
    before = r.before(k)
    words = before.split()
    if not before[-1:].isspace() or not words or words[-1][-1] in _NOT_CITED_AFTER:
        return False
    if words[-1].strip(".,;:*_()").lower() in _PART_WORDS:
        return False
    if _BARE.search(_SENTENCE_END.split(before)[-1]):
        return False  # a list: another "(N)" earlier in the sentence
    return not _listed_after(r, end)


def _listed_after(r: _Reader, end: int) -> bool:
    """Whether another bare "(N)" follows soon, before the sentence ends."""
    for j in range(end, end + LOOK):
        c = r.at(j)
        if c in ("", "\n") or (c in (".", "!", "?") and r.at(j + 1) in _ENDS):
            return False
        if c == "(":
            n = 0
            while n < 4 and r.at(j + 1 + n) in _DIGITS:
                n += 1
            if 1 <= n <= 3 and r.at(j + 1 + n) == ")":
                return True
    return False


def _after_sentence(r: _Reader, i: int) -> bool:
    """Whether the text before ``i`` ends a sentence (or there is none)."""
    before = r.before(i).rstrip().rstrip("*_\"'\u201d\u2019)")
    return not before or before[-1] in ".!?"


def _numbers(r: _Reader, j: int) -> tuple[list[int], int] | None:
    """A list of numbers from ``j`` ("1", "1, 2", "Sources 1 and 2", "Source 1; Source 3")."""
    item = _item(r, j)
    if item is None:
        return None
    numbers, end = [item[0]], item[1]
    while (nxt := _separator(r, end)) is not None and (item := _item(r, nxt)) is not None:
        numbers.append(item[0])
        end = item[1]
    return numbers, end


def _item(r: _Reader, j: int) -> tuple[int, int] | None:
    """One number, perhaps after "Source", "Sources:" or "Source #"."""
    if r.at(j) in ("s", "S"):
        for n, letter in enumerate("source"):
            if r.at(j + n).lower() != letter:
                return None
        j += 7 if r.at(j + 6).lower() == "s" else 6
        if r.at(j).isalpha():
            return None
        j = _skip_spaces(r, j)
        if r.at(j) == ":":
            j = _skip_spaces(r, j + 1)
        if r.at(j) == "#":
            j += 1
    end = j
    while r.at(end) in _DIGITS:
        end += 1
    digits = r.text[j:end]
    if not 1 <= len(digits) <= 3 or digits[0] == "0" or r.at(end).isalpha():
        return None
    if r.at(end) == "." and r.at(end + 1) in _DIGITS:  # "Source 1.2" is not a citation
        return None
    return int(digits), end


def _separator(r: _Reader, end: int) -> int | None:
    """Where the next number of a list starts after ``end`` (", ", "; ", " and ", " & ")."""
    j = _skip_spaces(r, end)
    c = r.at(j)
    if c in (",", ";", "&"):
        j = _skip_spaces(r, j + 1)
        return _skip_spaces(r, j + 3) if c == "," and _is_and(r, j) else j
    return _skip_spaces(r, j + 3) if _is_and(r, j) else None


def _is_and(r: _Reader, j: int) -> bool:
    return all(r.at(j + n).lower() == c for n, c in enumerate("and")) and not r.at(j + 3).isalnum()


def _skip_spaces(r: _Reader, k: int) -> int:
    while r.at(k) in _SPACES:
        k += 1
    return k
