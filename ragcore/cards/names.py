"""Author names: split a list of them, and tell a person's name from a title or an organization.

Used on what a document declares (an "Author:" field, a PDF's /Author, a "by" line) and on the
lines of its first page, where a name must be told from a title line: a person's name here is
two to five capitalized words or initials ("Murugiah Souppaya", "R. Fielding", "Guido van
Rossum") with none of the words organizations and titles are made of.
"""

from __future__ import annotations

import re

# Words that make a line an organization, an office or a title rather than a person's name.
_NOT_NAME_WORDS = frozenset("""
    institute institution university college school department division laboratory laboratories
    lab agency office center centre council committee commission society association foundation
    group team corporation corp company inc ltd llc gmbh board bureau ministry government
    national federal international technology technologies standards security computer
    systems services software network networks research science sciences engineering
    information press publishing publishers secretary director chair president editor
    framework guide guidelines architecture introduction contents abstract summary chapter
    version revision edition volume publication special report paper draft appendix table
    project program programme working internet protocol specification standard
    """.split())
# Endings of English nouns and adjectives that names do not have ("Critical Infrastructure
# Cybersecurity" is a title line, not a person; "-ence" and "-ise" are not here: Florence,
# Louise).
_NOT_NAME_ENDINGS = ("tion", "sion", "ment", "ness", "ity", "ical", "ture", "ous", "ogy",
                     "ism", "ship", "ware", "ics", "ize")
# Lower-case particles that belong to a name ("Guido van Rossum", "Charles de Gaulle").
_PARTICLES = frozenset("van von der den de del della da di du la le bin ibn".split())
_INITIAL = re.compile(r"^[A-Z]\.(?:-?[A-Z]\.)*$")  # "R.", "J.-P."
_WORD = re.compile(r"^[A-Z][a-z\u00e0-\u00ff'\u2019]+(?:-[A-Z][a-z\u00e0-\u00ff'\u2019]+)*\.?$")
_MC_WORD = re.compile(r"^(?:Mc|Mac|O')[A-Z][a-z]+$")  # "McDonald", "O'Brien"
_SUFFIXES = frozenset(("Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV", "PhD", "Ph.D."))
# Marks after a name that point to an affiliation or a footnote: "Donna Dodson*", "Smith1".
_MARKS = re.compile(r"[\s*\u2020\u2021\u00a7\d,]+$")
_EMAIL = re.compile(r"<[^>]*>|\S+@\S+")
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SEPARATORS = re.compile(r"\s*;\s*|\s*,\s*(?:and\s+)?|\s+and\s+|\s*&\s*")
_ET_AL = re.compile(r",?\s+et\.?\s+al\.?$", re.IGNORECASE)


def is_person_name(text: str) -> bool:
    """Whether ``text`` reads as one person's name: "Karen Scarfone", "T. Berners-Lee"."""
    words = text.split()
    if not 2 <= len(words) <= 5 or words[-1] in _SUFFIXES and len(words) < 3:
        return False
    core = [w for w in words if w not in _SUFFIXES]
    if core[0] in _PARTICLES or core[-1] in _PARTICLES:
        return False
    seen_word = False
    for word in core:
        if word in _PARTICLES:
            continue
        lower = word.rstrip(".").lower()
        if lower in _NOT_NAME_WORDS or lower.removesuffix("s").endswith(_NOT_NAME_ENDINGS):
            return False
        if _INITIAL.match(word):
            continue
        if not (_WORD.match(word) or _MC_WORD.match(word)):
            return False
        seen_word = True
    # The surname is a word, never an initial ("Smith J." is a citation, not a by-line).
    return seen_word and not _INITIAL.match(core[-1])


def is_organization(text: str) -> bool:
    """Whether a declared author is an organization ("NIST Computer Security Division")."""
    words = re.findall(r"[A-Za-z]+", text)
    return any(w.lower() in _NOT_NAME_WORDS for w in words) or any(
        len(w) > 1 and w.isupper() for w in words
    )


def split_names(text: str) -> tuple[str, ...]:
    """The names of an author list: "A; B; C", "A, B and C", "A <a@x.org>, B (Org)"."""
    text = _EMAIL.sub(" ", text)
    text = _BRACKETS.sub(" ", text)
    text = _ET_AL.sub("", " ".join(text.split()))
    names = []
    for part in _SEPARATORS.split(text):
        name = _MARKS.sub("", part).strip(" ,;:")
        last = name.rsplit(" ", 1)[-1]
        if name.endswith(".") and not (_INITIAL.match(last) or last in _SUFFIXES):
            name = name[:-1]  # the full stop of the sentence the list ended
        if name and name.lower() not in ("and", "et al"):
            names.append(name)
    return tuple(dict.fromkeys(names))


def clean_name(line: str) -> str:
    """A name line without its affiliation marks: "Donna Dodson*" -> "Donna Dodson"."""
    return _MARKS.sub("", line).strip()
