"""AcronymExpansions: "What does SDLC stand for?" is answered where the documents spell it out.

A document spells an acronym out once ("A software development life cycle (SDLC) is ..."),
often in a footnote or a glossary, and uses it bare everywhere else; the passages a search
returns for the question are the ones that use it most, and rarely the one that spells it out,
so a reader model guesses ("Secure Software Development Framework"). When the question asks
what an acronym stands for (``asked_acronym``), the index's keyword search finds the nodes that
hold it, and the first sentence spelling it out (the words before "(SDLC)" whose initials make
it, or "SDLC (software development life cycle)" after it) is put first, as a passage of its own
that cites the node it comes from. Any other question, or an acronym no node spells out, passes
through unchanged. No model: the expansion is the document's own words, found by their form.
"""

from __future__ import annotations

import re
from typing import Iterator, Protocol, Sequence

from ..chunking import sentences
from ..errors import StoreError
from ..llms.extractive.question import asked_acronym
from ..postprocess import Postprocessor
from ..types import ScoredNode

ACRONYM_SUFFIX = "#acronym"
SEARCHED = 50  # nodes holding the acronym read for its expansion (keyword search, best first)
# Words an acronym's letters skip: "Department of Defense (DoD)", "Research and Development".
_SMALL = frozenset("of and the for to in on at by a an with from &".split())
_WORD = re.compile(r"[A-Za-z][\w'’-]*|&")


class KeywordIndex(Protocol):
    def keyword_search(self, query: str, *, top_k: int = 4) -> list[ScoredNode]: ...


def expansion_in(text: str, acronym: str) -> str | None:
    """The first sentence of ``text`` that spells ``acronym`` out, or None."""
    for sentence in sentences(text):
        if expanded(sentence, acronym) is not None:
            return sentence
    return None


def expanded(sentence: str, acronym: str) -> str | None:
    """The words of ``sentence`` that ``acronym`` stands for: before "(SDLC)" or inside the
    parentheses after "SDLC", their initials making the acronym; None when it has neither."""
    bare = re.escape(acronym)
    for match in re.finditer(rf"\(\s*{bare}s?\s*\)", sentence):
        words = _WORD.findall(sentence[: match.start()])
        found = _initials_match(words, acronym, from_end=True)
        if found:
            return found
    for match in re.finditer(rf"(?<![\w-]){bare}s?\s*\(([^()]{{3,120}})\)", sentence):
        words = _WORD.findall(match.group(1))
        found = _initials_match(words, acronym, from_end=False)
        if found and len(found.split()) >= len(words) - 1:
            return found
    return None


def _initials_match(words: list[str], acronym: str, *, from_end: bool) -> str | None:
    """The shortest run of ``words`` (ending the list, or starting it) whose initials, small
    words skipped and hyphenated parts counted alone, spell ``acronym``'s letters."""
    # "DoD": its capitals are its initials, the small letters come from "of".
    mixed = any(c.islower() for c in acronym)
    letters = [c.lower() for c in acronym if (c.isupper() if mixed else c.isalpha())]
    if len(letters) < 2:
        return None
    longest = min(len(words), 2 * len(letters) + 2)
    for size in range(1, longest + 1):
        run = words[-size:] if from_end else words[:size]
        if _spells(run, letters):
            return " ".join(run)
    return None


def _spells(run: list[str], letters: list[str]) -> bool:
    initials = []
    for word in run:
        if word.lower() in _SMALL:
            continue
        initials += [part[0].lower() for part in word.split("-") if part]
    # "Network-Based" may give one letter or two: try the words whole too.
    whole = [w[0].lower() for w in run if w.lower() not in _SMALL]
    return letters in (initials, whole) and run[0].lower() not in _SMALL


class AcronymExpansions(Postprocessor):
    """Puts the sentence spelling out the asked acronym first (see the module docstring)."""

    def __init__(self, index: KeywordIndex, *, searched: int = SEARCHED) -> None:
        self.index = index
        self.searched = searched

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        acronym = asked_acronym(query)
        if acronym is None:
            return nodes
        for scored in self._holding(acronym, nodes):
            sentence = expansion_in(scored.node.text, acronym)
            if sentence is not None:
                best = max((n.score for n in nodes if n.score is not None), default=None)
                return [ScoredNode(scored.node.quoting(sentence, ACRONYM_SUFFIX), best), *nodes]
        return nodes

    def _holding(self, acronym: str, nodes: Sequence[ScoredNode]) -> Iterator[ScoredNode]:
        """The retrieved nodes, then (only if none of them spells it out) the ones the keyword
        search finds for the acronym."""
        yield from nodes
        seen = {n.node.node_id for n in nodes}
        try:
            found = self.index.keyword_search(acronym, top_k=self.searched)
        except StoreError:  # an index whose keywords cannot be read: the retrieved nodes only
            return
        yield from (n for n in found if n.node.node_id not in seen)
