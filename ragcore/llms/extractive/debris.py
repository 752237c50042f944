"""What the extractive answerer never quotes although it reads as a sentence: filler, table
rows, references.

``text`` leaves out what does not read as a sentence (headings, code, captions,
boilerplate lines); this module judges sentences that do. Filler announces or points rather than
says ("The five Framework Core Functions are defined below.", "See Appendix A for the complete
listing.", "This section describes ..."); one ending in a colon is no filler, since it leads
into the list after it. A table row read by a PDF reader runs its cells together into what looks
like a sentence ("ID.RA-2: Cyber threat intelligence is received ... COBIT 5 BAI08.01 ISA
62443-2-1:2009 4.2.3, 4.2.3.9 ..."): it is dense with codes that mix letters and digits or chain
numbers, where prose has plain numbers at most ("8,336,817 in 2019"). A reference entry cites:
"[12] ...", a link or DOI, a list of surnames with initials. The summaries
of ``summary`` are stricter still (footnotes, number-dense lines).
"""

from __future__ import annotations

import re

from ...search.lexical import words

_POINTED_AT = r"(?:sections?|chapters?|appendix|appendices|tables?|figures?|below|above)"
# Sentences that announce what comes ("X are defined below") or point elsewhere.
_FILLER = re.compile(
    r"\b(?:is|are|was|were|be|been)\s+(?:\w+ly\s+)?(?:defined|described|listed|shown|given|"
    r"explained|summari[sz]ed|presented|outlined|discussed|detailed|provided|illustrated|"
    r"depicted|introduced|covered)\s+(?:below|(?:as follows)|(?:in|by)\s+(?:the\s+)?"
    r"(?:following|next|" + _POINTED_AT + r")\b[^.;]{0,40})\s*[.:]?$"
    r"|^(?:the\s+)?following\s+(?:\w+\s+)?(?:tables?|figures?|sections?|subsections?|list|"
    r"paragraphs?|chapters?)\s+(?:\w+\s+){0,2}?(?:lists?|shows?|describes?|presents?|"
    r"provides?|summari[sz]es?|gives?|discuss(?:es)?|contains?|illustrates?|defines?)\b"
    r"|^this\s+(?:section|subsection|chapter|appendix|part)\s+(?:\w+ly\s+)?(?:describes|"
    r"discusses|presents|provides|covers|explains|introduces|outlines|lists|contains|gives|"
    r"summari[sz]es|defines|details)\b"
    r"|^(?:see|refer to)\s+(?:the\s+)?" + _POINTED_AT + r"\b"
    r"|^(?:table|figure)\s+[\dA-Z][\w.-]*\s+(?:lists|shows|summari[sz]es|depicts|illustrates|"
    r"provides|presents|gives|contains)\b"
    # A tutorial's signposts: "First, let's take a look at the ownership rules."
    r"|^(?:(?:first|now|next|then|so|here),?\s+)?let[\u2019']s\s+"
    r"(?:take\s+a\s+(?:closer\s+)?look|look|see|start|begin|turn|examine|discuss|consider|"
    r"explore|review)\b"
    r"|^(?:in\s+)?this\s+(?:chapter|section),?\s+(?:we|you)(?:[\u2019']ll|\s+will)\b"
    r"|^(?:next|now|first|then),?\s+(?:we|you)(?:[\u2019']ll|\s+will)\s+"
    r"(?:look|see|discuss|explore|examine|cover|learn|talk)\b",
    re.I,
)
FILLER_WORDS = 20  # a longer sentence says something besides its pointer
# ... unless all it says is what comes later ("Parts of ownership will be described ... later
# in this chapter, so here is a brief explanation in preparation.").
_LATER = re.compile(r"\blater in (?:this|the) (?:chapter|section|document|book|guide)\b|"
                    r"\bin (?:the )?(?:next|following) (?:chapter|section)s?\b", re.I)
SIGNPOST_WORDS = 30


def is_filler(sentence: str) -> bool:
    """Whether a sentence announces or points rather than says ("X are defined below.");
    one ending in a colon is kept, since it introduces what follows it."""
    text = sentence.strip()
    count = len(words(text))
    if text.endswith(":") or count > SIGNPOST_WORDS:
        return False
    return bool(_LATER.search(text) or (count <= FILLER_WORDS and _FILLER.search(text)))


_CODE = re.compile(r"^(?=.*\d)(?:.*[A-Za-z].*|\d+(?:[.\-:/]\d+){2,})$")  # BAI08.01, 4.2.3.9
_REFERENCE = re.compile(r"^\[\d{1,3}\]\s|https?://|www\.|\bdoi:", re.I)
_AUTHORS = re.compile(r"\b[A-Z][a-z]+ [A-Z]{1,2}, [A-Z][a-z]+ [A-Z]{1,2}\b")  # "Rose S, Borchert O"
_ORDINAL_NUMBER = re.compile(r"^\d+(?:st|nd|rd|th|s)$")  # "5th", "1990s": prose
TABLE_CODES = 4  # a table row has this many codes at least ...
TABLE_SHARE = 0.15  # ... and this share of its words


def is_debris(sentence: str) -> bool:
    """Whether a sentence is a table row or a reference entry (see the module docstring)."""
    return is_table_row(sentence) or bool(_REFERENCE.search(sentence) or
                                          _AUTHORS.search(sentence))


def is_table_row(sentence: str) -> bool:
    """Cells run together: many codes such as "ID.RA-2", "SA-10", "A.6.1.4", "4.2.3"."""
    tokens = [t.strip(",;()[]") for t in sentence.split()]
    codes = sum(bool(_CODE.match(t)) and not _ORDINAL_NUMBER.match(t) for t in tokens)
    return codes >= TABLE_CODES and codes >= TABLE_SHARE * len(tokens)
