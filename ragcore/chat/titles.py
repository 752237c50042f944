"""Chat titles that tell chats apart: key phrases of the first exchange, or a model's title.

Offline (the extractive backend cannot write), ``key_phrase_title`` keeps the question's runs
of content words ("What did the speech say about Ukraine?" -> "Speech, Ukraine"): the words a
person would scan a list for, not "Chat 3" or the whole question. With a model that writes,
``generated_title`` asks it once for a few words, reading at most ``TITLE_REPLY_CHARS`` of the
reply, and falls back to the key phrases when the model fails or answers nothing usable, or
names what the chat does not say (``unsaid_names``: a walk saw an author's name in a title that
neither the question nor the reply held).
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
according regarding concerning
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
    title = _clean_title(reply)
    unsaid = unsaid_names(title, question, answer)
    if unsaid:
        logger.info("the model's chat title %r names what the chat does not (%s): using key "
                    "phrases", title, ", ".join(unsaid))
    return title if title and not unsaid else key_phrase_title(question, answer)


# Words a title may add to what the conversation says: they name the kind of exchange.
_TITLE_WORDS = frozenset("""
overview introduction basics guide explained explanation key main points details question
questions answer answers facts comparison differences definition meaning
""".split())


def unsaid_names(title: str, question: str, answer: str) -> list[str]:
    """The names in ``title`` that neither ``question`` nor ``answer`` says, in any case or form
    ("Elections" is said by "election"): names the model brought in itself. A title writes
    every word capitalised, so one unsaid word is a word of its own choosing ("Duration",
    "Rules"); a name is two or more unsaid capitalised words in a row ("Jeffrey Dean"), or one
    after "by" ("... by Dean")."""
    said = {_stem(word) for word in _TOKEN.findall(f"{question} {answer}")}
    words = _TOKEN.findall(title)
    unsaid = [word[:1].isupper() and word.lower() not in _STOP | _TITLE_WORDS
              and _stem(word) not in said for word in words]
    names = []
    for at, word in enumerate(words):
        in_a_run = (at > 0 and unsaid[at - 1]) or (at + 1 < len(words) and unsaid[at + 1])
        after_by = at > 0 and words[at - 1].lower() == "by"
        if unsaid[at] and (in_a_run or after_by):
            names.append(word)
    return names


def _stem(word: str) -> str:
    """A word's form for telling whether a text says it: lower case, without a possessive or
    an ending (-s, -es, -ed, -ing), its first four letters ("Merging" and "merges", "value" and
    "values"); a name the text lacks seldom shares them with a word it has."""
    bare = word.lower()
    return (re.sub(r"(?:['’]s|ing|ed|es|s)$", "", bare) or bare)[:4]


def _clean_title(reply: str) -> str:
    line = next((ln for ln in reply.splitlines() if ln.strip()), "")
    line = re.sub(r"^(?:title\s*:\s*)", "", line.strip(), flags=re.IGNORECASE)
    line = _unwrapped(line.strip(_DECORATION).rstrip(".!:;,")).strip(_DECORATION)
    if len(line) > TITLE_CHARS:
        line = line[: TITLE_CHARS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return balanced_quotes(line).strip(_DECORATION).rstrip(".!:;,")


_DECORATION = " *#`"
_WRAPPERS = {'"': '"', "“": "”", "'": "'", "‘": "’"}
# A quote mark opens where a word begins (after the start, a space or a bracket), else closes.
_OPENS_AT = re.compile(r"(?:^|(?<=[\s(\[]))[\"“'‘](?=\S)")
_DOUBLE = re.compile(r"[\"“”]")


def _unwrapped(line: str) -> str:
    """``line`` without the quote marks around all of it ('"Kafka's Metamorphosis"'), kept
    when they are two titles' own ('"Trial" and "Castle"')."""
    while len(line) > 1 and _WRAPPERS.get(line[0]) == line[-1]:
        inner = line[1:-1].strip()
        first = _DOUBLE.search(inner) if line[0] in "\"“" else None
        if first is not None and not _OPENS_AT.match(inner, first.start()):
            break  # the first inner mark closes: the outer ones belong to two quotes
        line = inner
    return line


def balanced_quotes(title: str) -> str:
    """``title`` without an unpaired double quote mark ('Franz Kafka's "Metamorphosis' ->
    'Franz Kafka's Metamorphosis'), nor an opening single one that is never closed; an
    apostrophe (Kafka's, the students' work) is no quote mark and stays."""
    unpaired, opened = [], None
    for mark in _DOUBLE.finditer(title):
        opens = mark.group() == "“" or (mark.group() == '"' and
                                        _OPENS_AT.match(title, mark.start()) is not None)
        if opens:
            if opened is not None:
                unpaired.append(opened)
            opened = mark.start()
        elif opened is None:
            unpaired.append(mark.start())
        else:
            opened = None
    unpaired += [] if opened is None else [opened]
    for mark in _OPENS_AT.finditer(title):  # a single quote opened, never closed after it
        closer = "’" if mark.group() == "‘" else "'’"
        if mark.group() in "'‘" and not re.search(rf"\S[{closer}](?!\w)", title[mark.end():]):
            unpaired.append(mark.start())
    kept = "".join(c for i, c in enumerate(title) if i not in set(unpaired))
    return " ".join(kept.split())


def chat_title(question: str, answer: str, llm: LLM | None) -> str:
    """The title of a chat after its first exchange: the model's with one, else key phrases."""
    if llm is not None and writes_free_text(llm):
        return generated_title(llm, question, answer)
    return key_phrase_title(question, answer)


def distinct_title(title: str, taken: set[str], question: str, answer: str = "") -> str:
    """``title``, or when another chat has it (case ignored), the title with a short key phrase
    of the question (then of the answer) that makes it unique ("Chubby Cell Replicas: master
    election"); failing that, numbered ("Chubby Cell Replicas (2)"). A phrase is added only
    whole (never ending where its sentence goes on: "syntax according" of "according to"),
    short, and mostly of words the title lacks (no near-duplicate restating it)."""
    used = {t.casefold() for t in taken}
    if title.casefold() not in used:
        return title
    for text in (question, _without_lead_in(answer)):
        for phrase in complete_phrases(text):
            if len(phrase) > SUFFIX_CHARS or _restates(title, phrase):
                continue
            candidate = f"{title}: {phrase}"
            if candidate.casefold() not in used:
                return candidate
    number = 2
    while f"{title} ({number})".casefold() in used:
        number += 1
    return f"{title} ({number})"


SUFFIX_CHARS = 30  # a phrase that tells a title apart is a few words
# Words that may follow a whole phrase: its sentence goes on with a new part (a verb, a
# conjunction, a question word), not with the object or the rest of the phrase ("a", "to").
_AFTER_WHOLE = frozenset("""
am is are was were be been being do does did has have had can could will would shall should
may might must and or but nor so yet because since while when where which who whom whose why
how that than then if
""".split())


def complete_phrases(text: str) -> list[str]:
    """``key_phrases`` of ``text`` that end where a phrase ends: at the end of the text, at a
    punctuation mark, or before a word that begins a new part of the sentence."""
    whole = []
    for phrase in key_phrases(text):
        found = re.search(rf"(?<!\w){re.escape(phrase)}(?!\w)", text, re.IGNORECASE)
        after = text[found.end():].lstrip() if found else "?"
        word = _TOKEN.match(after)
        if not after or not after[0].isalnum() or (word and word.group().lower()
                                                   in _AFTER_WHOLE):
            whole.append(phrase)
    return whole


def _restates(title: str, phrase: str) -> bool:
    """Whether most of ``phrase``'s words are already in ``title`` (or the phrase holds it)."""
    def words(text: str) -> set[str]:
        return {re.sub(r"['’]s$", "", w.lower()) for w in _TOKEN.findall(text)}

    mine, its = words(phrase), words(title)
    return phrase.casefold() in title.casefold() or len(mine & its) * 2 > len(mine)


def _without_lead_in(answer: str) -> str:
    """The answer without a first line that only leads in to what follows ("Here is what the
    documents say:", the extractive answerer's label): its words tell no chat apart."""
    first, _, rest = answer.strip().partition("\n")
    return rest if first.rstrip().endswith(":") and rest.strip() else answer
