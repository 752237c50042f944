"""Follow-up questions made standalone, without a model: the extractive answerer's condense step.

``make_standalone`` replaces the impersonal pronouns of a follow-up ("when was it published?")
with the topic of the earlier questions ("the Transformer paper"), found by ``main_noun_phrase``.
The chat engines' condense requests and the extractive ReAct agent's first search use it; the
answer itself is chosen by ``answer``.
"""

from __future__ import annotations

import re
from typing import Sequence

from ...search.lexical import STOPWORDS

_WORD_TOKEN = re.compile(r"[\w][\w\-./']*\w|\w")
# Only impersonal pronouns: a question's topic is rarely a person, so "he"/"she" are left alone
# ("what did he ask about it?" must not become "what did Ukraine ask about Ukraine?").
_PRONOUNS = {"it": "", "they": "", "them": "", "its": "'s", "their": "'s"}
_PRONOUN = re.compile(r"\b(" + "|".join(_PRONOUNS) + r")\b", re.IGNORECASE)
_DEMONSTRATIVE_END = re.compile(r"\b(this|that)\b(?=\s*[?.!,]?\s*$)", re.IGNORECASE)
_CONTINUATION = re.compile(r"^\s*(?:and|so|but|also|then)\b[\s,]*", re.IGNORECASE)
_ELLIPTICAL = re.compile(r"^\s*(?:what|how)\s+about\b", re.IGNORECASE)


def make_standalone(question: str, previous_questions: Sequence[str]) -> str:
    """``question`` with pronouns (it, its, they...) replaced by the topic of earlier questions."""
    topic = topic_of(previous_questions)
    question = question.strip()
    if not topic or topic.lower() in question.lower():
        return question
    rewritten, replaced = _replace_pronouns(_CONTINUATION.sub("", question), topic)
    if not replaced and (_ELLIPTICAL.match(rewritten) or _CONTINUATION.match(question)):
        rewritten = f"{rewritten.rstrip(' ?.!')} (about {topic})?"
    return rewritten[:1].upper() + rewritten[1:]


def topic_of(previous_questions: Sequence[str]) -> str:
    """What a follow-up's pronouns refer to: the main noun phrase of the latest question."""
    # Earlier follow-ups ("and its size?") point further back: prefer questions without pronouns.
    newest_first = list(reversed(previous_questions))
    ranked = [q for q in newest_first if not _PRONOUN.search(q)]
    ranked += [q for q in newest_first if _PRONOUN.search(q)]
    return next((t for t in map(main_noun_phrase, ranked) if t), "")


def _replace_pronouns(question: str, topic: str) -> tuple[str, bool]:
    count = 0

    def swap(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return topic + _PRONOUNS[match.group(0).lower()]

    text = _PRONOUN.sub(swap, question)
    text, more = _DEMONSTRATIVE_END.subn(topic, text)
    return text, bool(count + more)


def main_noun_phrase(question: str) -> str:
    """The topic of a question: its most specific run of content words ('RFC 9110').

    Runs with capitalized words or numbers win, then longer runs, then later ones (the object
    of a question usually comes after its verb). A preceding "the" is kept.
    """
    tokens = _WORD_TOKEN.findall(question)
    runs: list[tuple[int, int]] = []
    start = None
    for i, token in enumerate(tokens + [""]):
        content = token and token.lower() not in STOPWORDS and token.lower() not in _PRONOUNS
        if content and start is None:
            start = i
        elif not content and start is not None:
            runs.append((start, i))
            start = None
    if not runs:
        return ""

    def score(run: tuple[int, int]) -> tuple[int, int, int]:
        words = tokens[run[0] : run[1]]
        special = sum(1 for i, w in enumerate(words, run[0])
                      if (i > 0 and w[0].isupper()) or any(c.isdigit() for c in w))
        return special, len(words), run[0]

    first, end = max(runs, key=score)
    phrase = " ".join(tokens[first:end])
    return f"the {phrase}" if first > 0 and tokens[first - 1].lower() == "the" else phrase
