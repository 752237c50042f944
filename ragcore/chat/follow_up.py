"""Which messages refer back to the conversation: only those are rewritten before the search.

A question that stands on its own ("Who wrote the annual report?") is searched as written: no
model call, nothing the person wrote is reworded, and Regenerate asks it again as it was. A
follow-up leans on an earlier turn in one of three ways, each told by a closed class of English
words rather than by a list of questions:

- **a reference**: a third-person pronoun, a demonstrative or a word such as "else" standing for
  something named before ("how many of *them*", "what about *it*", "*this* rule", "who *else*");
- **a continuation**: it opens as the rest of the last turn ("*And* GM?", "*What about*
  inflation?", "*But* why?");
- **a fragment**: one word ("Why?", "GM?"), or a few naming nothing ("How many?", "Tell me
  more").

``refers_back`` gives the reason as a person would read it (the trace keeps it), "" for a
question that stands alone. A false alarm costs one short model call, which then returns the
question much as it was; a miss searches the message as written, and the answer's prompt still
carries the latest turn (``ragcore.memory``).
"""

from __future__ import annotations

import re

from ..search.analysis import STOPWORDS

# Pronouns stand for something named before: in the message itself when a name comes first
# ("When did Ford announce its plan?"), else in an earlier turn.
PRONOUNS = frozenset({
    "it", "its", "itself", "they", "them", "their", "theirs", "themselves",
    "he", "him", "his", "himself", "she", "her", "hers", "herself",
})
# Words that point outside the message whatever it names ("this rule", "who else", "your
# answer"). "that" and "there" are left out: far more often a conjunction ("the law that caps
# ...") or "there is" than a reference.
POINTING = frozenset({"this", "these", "those", "such", "else", "former", "latter",
                      "aforementioned", "your"})
# Openings that continue the last turn rather than start a new question.
_CONTINUING = re.compile(
    r"^\s*(?:and|but|so|also|or|plus|then|what about|how about|as for|same for|why not)\b",
    re.IGNORECASE)
# "that" at the very end ("what about that?") or start ("That one?") is a reference.
_THAT = re.compile(r"^\s*that\b|\bthat\s*[?.!]*\s*$", re.IGNORECASE)
_WORD = re.compile(r"[\w][\w\-'’]*")
FRAGMENT_WORDS = 3  # one word, or up to this many naming nothing (a name, a number): a fragment


def refers_back(message: str) -> str:
    """Why ``message`` leans on an earlier turn ("" when it stands on its own)."""
    words = _WORD.findall(message)
    lowered = [w.lower().replace("’", "'") for w in words]
    named = [_names(w, at) for at, w in enumerate(words)]
    referring = [w for at, w in enumerate(lowered) if w.split("'")[0] in POINTING or (
        w.split("'")[0] in PRONOUNS and not any(named[:at]))]
    if referring or _THAT.search(message):
        return f"it refers back (“{(referring or ['that'])[0]}”)"
    if (opening := _CONTINUING.match(message)) is not None:
        return f"it continues the last turn (“{opening.group(0).strip()}”)"
    if len(words) == 1 or (len(words) <= FRAGMENT_WORDS and not any(named)):
        return "it is a fragment of a question"
    return ""


def _names(word: str, at: int) -> bool:
    """Whether ``word`` names something: a number, an acronym, or a capitalised word past the
    first."""
    return any(c.isdigit() for c in word) or (len(word) > 1 and word.isupper()) or (
        at > 0 and word[:1].isupper() and word.lower() not in STOPWORDS)
