"""The summary router: does a question ask for a summary (of which document), or for a search?

Top-k retrieval cannot answer "summarise the relocation memo": the answer needs the whole
memo, not its four passages nearest the words "summarise" and "memo". ``route_question``
reads the question's intent (summarise, summary, overview, gist, "what is ... about") and
matches what follows against the index's document names ("relocation memo" finds
``relocation-memo.docx``). It returns a ``Route``: a document's summary, the whole index's,
or ordinary retrieval, with the reason in plain words so the trace can show the choice.
Rules, not a model: it works offline, costs nothing and its choices can be explained.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

SUMMARY = "summary"
INDEX_SUMMARY = "index summary"
RETRIEVAL = "retrieval"

_INTENT = re.compile(
    r"\b(?:summari[sz](?:e|es|ing|ation)|summary|summaries|overview|gist|tl;?\s?dr|"
    r"main (?:points|ideas)|key points|what(?:'s| is| are)\s+(?P<about>.+?)\s+(?:all\s+)?about)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_FILLER = frozenset(
    "a an the this that these those of for me please can could you give write make short brief "
    "quick in on about document doc file text it its what is are whole all s say says said "
    "tell explain spreadsheet workbook presentation slides deck pdf book paper fresh new "
    "again anew rewrite redo".split()
)
# A request for a summary written now by the model, not the abstract or one kept from before.
_FRESH = re.compile(r"\b(?:fresh|new|anew|again|re-?write|redo|re-?summari[sz]e)\b",
                    re.IGNORECASE)
_INDEX_WORDS = frozenset(
    "index corpus collection everything them library".split()
)
_EXTENSIONS = frozenset(
    "pdf docx doc txt md rst html htm pptx xlsx epub rtf eml csv json ipynb".split()
)
# Words that say what kind of thing a document is, or its file type: "the state of the union
# speech" and "state_of_the_union.txt" both name state_of_the_union.txt, so these words count
# against a document only when its name holds them.
_KIND_WORDS = frozenset(
    "speech address article essay report letter story transcript talk lecture note notes "
    "manual guide paper chapter".split()
) | _EXTENSIONS
# A document is named when the question holds most of its name's words (or at least two of
# them, for long names such as "NIST.SP.800-207-ZeroTrustArchitecture.pdf") and those words
# are most of what the question asks to summarise ("summarise what PEP 8 says about
# indentation" is about a topic within PEP 8, so it is searched for instead).
NAME_SHARE = 0.6
TOPIC_SHARE = 0.75


@dataclass(frozen=True, slots=True)
class Route:
    """Where a question goes: ``kind`` is summary, index summary or retrieval."""

    kind: str
    reason: str
    document: str | None = None  # the key of the document to summarise
    score: float = 0.0

    def to_dict(self) -> dict:
        return {"kind": self.kind, "reason": self.reason, "document": self.document,
                "score": round(self.score, 3)}


def wants_fresh(question: str) -> bool:
    """Whether ``question`` asks the model to write a summary now ("write a fresh summary of
    …"), rather than for the document's abstract or a summary kept from before."""
    return _FRESH.search(question) is not None


def fresh_question(name: str) -> str:
    """The request that asks for a fresh summary of the file ``name`` (offered under a kept
    one: a button in the app, a hint in the terminal)."""
    return f"Write a fresh summary of {name}"


def name_words(name: str) -> set[str]:
    """The words of a file name ("Relocation_Memo-2024.docx" -> relocation, memo, 2024)."""
    stem = name.rsplit(".", 1)[0] if name.rsplit(".", 1)[-1].lower() in _EXTENSIONS else name
    return _words(_CAMEL.sub(" ", stem))


def _words(text: str) -> set[str]:
    """Content words, lower-cased, plural s and leading zeros dropped ("0008" is "8")."""
    stems = {_stem(w) for w in _WORD.findall(text.lower()) if w not in _FILLER}
    return stems - _FILLER


def _stem(word: str) -> str:
    if word.isdigit():
        return word.lstrip("0") or "0"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def route_question(question: str, documents: Mapping[str, str],
                   titles: Mapping[str, str] | None = None) -> Route:
    """Route ``question`` given the index's documents (key -> file name) and the titles some
    of them carry (key -> title: an HTML page's, a Word file's ...)."""
    intent = _INTENT.search(question)
    if intent is None:
        return Route(RETRIEVAL, "the question does not ask for a summary")
    topic = _topic_words(question, intent)
    titles = titles or {}
    best_key, best_score = None, 0.0
    for key, name in documents.items():
        score = max(_name_score(topic, name), _name_score(topic, titles.get(key, "")))
        if score > best_score:
            best_key, best_score = key, score
    if best_key is not None:
        name, title = documents[best_key], titles.get(best_key)
        titled = f" (“{title}”)" if title else ""
        return Route(SUMMARY, f"asks for a summary and names the document “{name}”{titled}",
                     best_key, best_score)
    if topic <= _INDEX_WORDS:
        return Route(INDEX_SUMMARY, "asks for a summary without naming one document")
    if len(documents) == 1:
        key = next(iter(documents))
        return Route(SUMMARY, "asks for a summary; the index holds one document", key, 1.0)
    return Route(RETRIEVAL, "asks for a summary of a topic, not of a document: searching for "
                            f"“{' '.join(sorted(topic))}”")


def _name_score(topic: set[str], name: str) -> float:
    """How surely ``name`` (a file name or title) is what ``topic`` asks about (0: it is not)."""
    wanted = name_words(name)
    asked = topic - (_KIND_WORDS - wanted)
    found = len(wanted & asked)
    if not asked or not found or found / len(asked) < TOPIC_SHARE:
        return 0.0
    score = found / len(wanted)
    return score if score >= NAME_SHARE or found >= 2 else 0.0


def _topic_words(question: str, intent: re.Match) -> set[str]:
    """The words that say what to summarise (the intent word and filler left out)."""
    rest = intent.group("about") or (question[: intent.start()] + " " + question[intent.end():])
    return _words(rest)
