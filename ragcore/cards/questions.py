"""``asks_about_document``: whether a question asks about a document itself, not its contents.

"Who wrote this paper?", "Who are the authors of NIST SP 800-218?", "When was RFC 2616
published?", "What is this document about?" are answered from the document's card. "Who wrote
the letter to Holmes?" is about what the story tells, so a question counts only when what it
asks about is a document: a document word ("paper", "report", "PEP", "book" ...) after "this",
"the" and the like, unless a name other than a document's follows it ("Who wrote the book
Colonel Sun?" asks about a book the passages name); a bare "this" or "it" as the whole object
("Who wrote it?"); a named document ("RFC 2616", "NIST SP 800-218", "pep-0008.rst", a quoted
title); or one of the ``titles`` of the documents at hand. A question with no such object is
not about a document, except the few that can mean nothing else ("Who are the authors?", "What
is the publication date?").
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

_DOC_WORDS = (
    r"(?:document|doc|paper|white\s+paper|report|publication|article|file|pdf|book|novel"
    r"|story|guide|guideline|standard|specification|spec|memo|pep|rfc|text|essay|thesis"
    r"|manuscript|speech|study|framework|proposal|handbook|manual|chapter)s?"
)
# Words a document word's modifiers never are: "the letter in the story" is not a story.
_NOT_MODIFIER = r"(?!(?:in|of|to|for|from|on|at|by|with|about|and|or|the|a|an|this|that|who)\b)"
_NAMED = (
    r"(?:NIST\s+)?(?:SP|Special\s+Publication|IR|FIPS(?:\s+PUB)?)\s*\d+(?:-\d+)?\w*"
    r"(?:\s+Rev(?:ision|\.)?\s*\d+)?|RFC\s*-?\d+|PEP\s*-?\d+|ISO(?:/IEC)?\s*\d+"
    r"|[\w.-]+\.(?:pdf|docx?|txt|md|rst|html?|xhtml|epub|pptx?)\b"
    r"|\"[^\"]{3,}\"|\u201c[^\u201d]{3,}\u201d|(?<!\w)'[^']{3,}'(?!\w)"
)
_NAMED_ALONE = re.compile(_NAMED, re.IGNORECASE)
_DETERMINER = r"(?:this|that|the|these|those|your|our|my|its)\s+"
_BARE = r"(?:this|it)(?=\s*(?:[?.!,]|$|\s(?:about|published|written|released|dated|come|came)))"
_AUTHOR_NOUN = r"(?:author|authors|writer|writers|editor|editors|publisher|creator|creators)"
_RELATE = r"(?:obsolete|update|replace|supersede|require)"
_MADE = r"(?:written|authored|published|prepared|edited|compiled|created|issued|released|produced)"
_PREDICATES = (
    r"\bwho\s+(?:wrote|authored|penned|writes|published|prepared|edited|compiled|issued"
    r"|created|produced|developed)\s+{P}",
    r"\b{N}\s+of\s+{P}",  # "the authors of NIST SP 800-218"
    # "the authors named on the specification", "the editors listed in this report"
    r"\b{N}\s+(?:(?:are|is|were|was)\s+)?(?:(?:named|listed|credited|given|shown)\s+)?"
    r"(?:on|in)\s+{P}",
    r"{P}'s\s+(?:authors?|writers?|editors?|title|date|publication\s+date|abstract|summary"
    r"|status|category)\b",
    # what the document declares of its place among others (``relations``)
    r"\b(?:which|what)\s+(?:[\w-]+\s+){{0,2}}(?:does|did|do)\s+{P}\s+{R}\b",
    r"\bdoes\s+{P}\s+{R}\b",
    r"\b(?:obsoleted|updated|replaced|superseded|required)\s+by\s+{P}",
    r"\b(?:what|which)\s+(?:[\w-]+\s+){{0,2}}(?:obsoletes|updates|replaces|supersedes)\s+{P}",
    r"\b(?:status|category)\s+of\s+{P}",
    r"\b(?:by\s+whom|who)\s+(?:was|is|were)\s+{P}\s+{M}",
    r"\b(?:was|is|were)\s+{P}\s+{M}\s+by\s+(?:whom|who)\b",
    r"\b(?:when|what\s+year|which\s+year|what\s+date)\s+(?:was|is|were|did)\s+{P}\s+"
    r"(?:first\s+)?(?:{M}|dated|approved|finali[sz]ed|come\s+out|came\s+out|appear|out)\b",
    r"\b(?:publication|release|issue|creation)\s+date\s+of\s+{P}",
    r"\bhow\s+old\s+is\s+{P}",
    r"\btitle\s+of\s+{P}",
    r"\bwhat\s+(?:is|are)\s+{P}\s+(?:called|titled|named)\b",
    r"\bwhat(?:'s|\s+is|\s+are)\s+{P}\s+(?:about|on)\s*[?.!]*$",
    r"\bwhat\s+(?:does|do)\s+{P}\s+(?:cover|describe|discuss|propose|recommend|define|specify)"
    r"\s*[?.!]*$",
    r"\b(?:summari[sz]e|summary\s+of|overview\s+of|abstract\s+of|gist\s+of|purpose\s+of)\s+{P}",
    r"\btell\s+me\s+about\s+{P}\s*[?.!]*$",
    r"\bwhat\s+(?:kind|type|sort)\s+of\s+(?:document|file|publication|text)\s+is\s+{P}",
    r"\bwhat(?:'s|\s+is|\s+are)\s+(?:this|these)(?:\s+{D})?\s*[?.!]*$",
    r"^(?:and\s+)?what(?:'s|\s+is)\s+(?:{X})\s*[?.!]*$",  # "What is RFC 2616?"
    r"\bwho\s+(?:is|are|was|were)\s+the\s+{N}\s*[?.!]*$",  # "Who are the authors?"
    r"\b(?:publication|release)\s+date\s*[?.!]*$",
)


def asks_about_document(question: str, *, titles: Iterable[str] = ()) -> bool:
    """Whether ``question`` asks who wrote a document, when it was published, what it is
    called or what it is about, naming it (``titles``: the documents at hand, so "Who wrote
    A Scandal in Bohemia?" counts)."""
    text = " ".join(question.replace("\u2019", "'").split())
    return bool(text) and _pattern(tuple(t for t in titles if len(t) >= 3)).search(text) is not None


def named_documents(question: str) -> tuple[str, ...]:
    """The documents ``question`` names by number, file name or quoted title ("RFC 2616",
    "NIST SP 800-218", "pep-0008.rst", "\u201cA Scandal in Bohemia\u201d")."""
    return tuple(m.group().strip("\"'\u201c\u201d") for m in _NAMED_ALONE.finditer(question))


@lru_cache(maxsize=64)
def _pattern(titles: tuple[str, ...]) -> re.Pattern[str]:
    named = "|".join([_NAMED, *(_title_forms(t) for t in titles)])
    modifiers = rf"(?:{_NOT_MODIFIER}[\w.-]+\s+){{0,3}}?"
    # "the book Colonel Sun" is the book a passage names, not a document at hand: a document
    # word followed by a name counts only when that name is a document's ("the report NIST SP
    # 800-218", a title at hand).
    unnamed = rf"(?!\s+(?!(?:{named}))(?-i:[A-Z]))"
    # A named document may be followed by what it also is: "SP 800-218 (SSDF version 1.1)".
    subject = (rf"(?:{_DETERMINER}{modifiers}{_DOC_WORDS}\b{unnamed}|(?:the\s+)?(?:{named})"
               rf"(?:\s*\([^()]{{1,60}}\))?|{_BARE})")
    # "What is RFC 2616?" asks what a document is; "What is zero trust architecture?" names a
    # title that is also the topic, and asks about the topic: a bare "What is X?" takes only
    # names a document alone carries (numbers, file names, quoted titles).
    forms = [p.format(P=subject, N=_AUTHOR_NOUN, M=_MADE, D=_DOC_WORDS, X=_NAMED, R=_RELATE)
             for p in _PREDICATES]
    return re.compile("|".join(f"(?:{f})" for f in forms), re.IGNORECASE)


def _title_forms(title: str) -> str:
    """A title as the question may name it: whole, or its main title before a colon (also
    without its parentheses and version: "Secure Software Development Framework"), or the
    acronym it gives itself in parentheses ("SSDF")."""
    main = title.split(":")[0]
    short = re.sub(r"\([^)]*\)|\bversion\s+[\d.]+", " ", main, flags=re.IGNORECASE)
    forms = {title.strip(), *(f.strip() for f in (main, short) if len(f.split()) >= 2)}
    # The short name a title gives itself: "Secure Software Development Framework (SSDF)".
    forms.update(re.findall(r"\(([A-Z][A-Z0-9&-]{1,9})\)", main))
    return "|".join(r"\s+".join(map(re.escape, f.split())) for f in sorted(forms, key=len,
                                                                            reverse=True))
