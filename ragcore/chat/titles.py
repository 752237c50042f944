"""Chat titles that tell chats apart: key phrases of the first exchange, or a model's title.

Offline (the extractive backend cannot write), ``key_phrase_title`` keeps the question's runs
of content words ("What did the speech say about Ukraine?" -> "Speech, Ukraine"): the words a
person would scan a list for, not "Chat 3" or the whole question. With a model that writes,
``generated_title`` asks it once for a few words, reading at most ``TITLE_REPLY_CHARS`` of the
reply, and falls back to the key phrases when the model fails or answers nothing usable.
``distinct_title`` tells a title apart from those of the other chats: six chats about one paper
are not all "Chubby Cell Replicas".
"""

from __future__ import annotations

import logging
import re

from ..errors import RagcoreError
from ..llms.base import LLM, writes_free_text
from ..prompts.chat import TITLE_PROMPT
from ..types import Message

logger = logging.getLogger(__name__)

TITLE_CHARS = 48  # a title fits one line of the sidebar
TITLE_REPLY_CHARS = 120  # characters of a model's title reply read before the stream is closed
_TOKEN = re.compile(r"[\w][\w.'’-]*[\w]|\w", re.UNICODE)
# Words that carry no topic: function words, question words and the verbs of asking.
_STOP = frozenset("""
a about above after again all also am an and any are as at be been before being below between
both but by can could did do does doing done during each few for from further had has have
having he her here hers him his how i if in into is it its itself just let me more most my no
nor not now of off on once only or other our out over own please same she should so some such
than that the their them then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours
say says said tell told explain describe give show list mention mentions mentioned talk talks
know think mean means find get want need like make makes there's what's it's i'm
summarise summarize summary overview gist anything something thing things
""".split())
_ARTICLES = frozenset({"the", "a", "an"})
_SUMMARY_ASKED = re.compile(r"\b(?:summari[sz]e|summary|overview|gist)\b", re.IGNORECASE)


def key_phrases(text: str) -> list[str]:
    """Runs of content words in ``text``, in order, without repeats (case ignored); "of" (and
    "of the") inside a run keeps it whole: "state of the union speech"."""
    phrases, run, joiners, seen = [], [], [], set()
    for token in _TOKEN.findall(text) + [""]:
        word = token.lower()
        if token and word not in _STOP:
            run += joiners + [token]
            joiners = []
        elif run and (word == "of" and not joiners or word in _ARTICLES and joiners):
            joiners.append(token)
        else:
            phrase = " ".join(run)
            if phrase and phrase.lower() not in seen:
                seen.add(phrase.lower())
                phrases.append(phrase)
            run, joiners = [], []
    return phrases


def key_phrase_title(question: str, answer: str = "") -> str:
    """The question's key phrases (the answer's when the question has none), one short line;
    a summary request says so ("Summary: state_of_the_union.txt")."""
    asked = key_phrases(question)
    title = ", ".join(_fitting(asked or key_phrases(answer)))
    if asked and _SUMMARY_ASKED.search(question):
        title = f"Summary: {title}"[:TITLE_CHARS].rstrip()
    return title[:1].upper() + title[1:] if title else "New chat"


def _fitting(phrases: list[str]) -> list[str]:
    """The first phrases that fit in a title together (at least the first, cut to fit)."""
    kept, length = [], 0
    for phrase in phrases:
        length += len(phrase) + (2 if kept else 0)
        if kept and length > TITLE_CHARS:
            break
        kept.append(phrase[:TITLE_CHARS].rstrip())
    return kept


def generated_title(llm: LLM, question: str, answer: str) -> str:
    """A model's few-word title for the exchange (key phrases if it fails or says nothing)."""
    prompt = TITLE_PROMPT.format(question=question[:600], answer=answer[:900])
    reply = ""
    try:
        chunks = llm.stream([Message("user", prompt)])
        for chunk in chunks:
            reply += chunk
            if len(reply) >= TITLE_REPLY_CHARS:
                break
        getattr(chunks, "close", lambda: None)()  # stop a server writing on
    except RagcoreError as exc:  # a title is a nicety: the answered turn must not fail for it
        logger.warning("no chat title from %s (%s): using key phrases", llm.model, exc)
        return key_phrase_title(question, answer)
    return _clean_title(reply) or key_phrase_title(question, answer)


def _clean_title(reply: str) -> str:
    line = next((ln for ln in reply.splitlines() if ln.strip()), "")
    line = re.sub(r"^(?:title\s*:\s*)", "", line.strip(), flags=re.IGNORECASE)
    line = line.strip(" \"'“”‘’*#`").rstrip(".!:;,")
    if len(line) > TITLE_CHARS:
        line = line[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return line


def chat_title(question: str, answer: str, llm: LLM | None) -> str:
    """The title of a chat after its first exchange: the model's with one, else key phrases."""
    if llm is not None and writes_free_text(llm):
        return generated_title(llm, question, answer)
    return key_phrase_title(question, answer)


def distinct_title(title: str, taken: set[str], question: str, answer: str = "") -> str:
    """``title``, or when another chat has it (case ignored), the title with the first key
    phrase of the question (then of the answer) it lacks that makes it unique ("Chubby Cell
    Replicas: master election"); failing that, numbered ("Chubby Cell Replicas (2)")."""
    used = {t.casefold() for t in taken}
    if title.casefold() not in used:
        return title
    for phrase in key_phrases(question) + key_phrases(_without_lead_in(answer)):
        if phrase.casefold() in title.casefold():
            continue
        candidate = f"{title}: {phrase[:TITLE_CHARS]}".rstrip()
        if candidate.casefold() not in used:
            return candidate
    number = 2
    while f"{title} ({number})".casefold() in used:
        number += 1
    return f"{title} ({number})"


def _without_lead_in(answer: str) -> str:
    """The answer without a first line that only leads in to what follows ("Here is what the
    documents say:", the extractive answerer's label): its words tell no chat apart."""
    first, _, rest = answer.strip().partition("\n")
    return rest if first.rstrip().endswith(":") and rest.strip() else answer
