"""The extractive backend: the offline default when no language model is configured.

There is no model. ``extractive_reply`` reads the prompt, recognises which of our prompts it is
by the section markers of ``ragcore.prompts`` and the ReAct format of ``ragcore.agent``, and
answers by quoting the sentences of the given context most relevant to the question (ranking in
``lexical``). It never invents text, and its answers say that they are extractive.

    prompt kind        recognised by                           reply
    qa / summary       "Context:" + "Question:" (user)         the most relevant sentences
    refine             "Existing answer:" + "New context:"     the existing answer, improved
    condense           "Conversation:" + "Follow-up question:" the follow-up made standalone
    generation         "Question:" with no context             says it needs documents
    context chat       "Context:" in the system message        quotes for the last user message
    ReAct              "Action Input:" + "Observation:" (sys)  search once, then quote results
    anything else      -                                       quotes from all other messages

Deterministic: the same messages always give the same reply.
"""

from __future__ import annotations

import json
import re
from typing import Iterator, Sequence

from ..errors import ConfigError
from ..prompts import (
    CONTEXT,
    CONVERSATION,
    EXISTING_ANSWER,
    FOLLOW_UP,
    NEW_CONTEXT,
    QUESTION,
    SUMMARY,
    read_sections,
)
from ..types import Message
from ..lexical import (
    STOPWORDS,
    centrality_scores,
    is_summary_request,
    select_sentences,
    split_sentences,
)

LABEL = "Extractive answer (no language model configured)"
NEEDS_DOCUMENTS = (
    f"{LABEL}: I can only answer from your documents, by quoting the passages most relevant "
    "to a question, and no passages came with this message. Ask a question about an index "
    "(query, or a chat mode that retrieves), or configure a language model (Ollama or an "
    "OpenAI-compatible server) for free conversation."
)
_OUR_LABEL_LINE = re.compile(r"^" + re.escape(LABEL) + r".*$\n?", re.MULTILINE)
_OBSERVATION = "Observation:"
_TOOL_LINE = re.compile(r"^> Tool:\s*(\S+)", re.MULTILINE)
_TOOL_ARGS = re.compile(r"^\s*Arguments \(JSON schema\):\s*(\{.*\})\s*$", re.MULTILINE)
_TOOL_CHOICES = re.compile(r"one of \[([^\]]*)\]")
_WORD_TOKEN = re.compile(r"[\w][\w\-./']*\w|\w")
_HISTORY_LINE = re.compile(r"^(user|assistant|system|tool):\s?(.*)$")
# Only impersonal pronouns: a question's topic is rarely a person, so "he"/"she" are left alone
# ("what did he ask about it?" must not become "what did Ukraine ask about Ukraine?").
_PRONOUNS = {"it": "", "they": "", "them": "", "its": "'s", "their": "'s"}
_PRONOUN = re.compile(r"\b(" + "|".join(_PRONOUNS) + r")\b", re.IGNORECASE)
_DEMONSTRATIVE_END = re.compile(r"\b(this|that)\b(?=\s*[?.!,]?\s*$)", re.IGNORECASE)
_CONTINUATION = re.compile(r"^\s*(?:and|so|but|also|then)\b[\s,]*", re.IGNORECASE)
_ELLIPTICAL = re.compile(r"^\s*(?:what|how)\s+about\b", re.IGNORECASE)


class ExtractiveLLM:
    """Answers by quoting the most relevant sentences of the prompt's context. No model."""

    model = "extractive"

    def __init__(
        self, *, max_sentences: int = 3, context_window: int = 32768, num_output: int = 512
    ) -> None:
        for name, value in (("max_sentences", max_sentences), ("context_window", context_window),
                            ("num_output", num_output)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} ({value!r}) must be a positive integer")
        if num_output >= context_window:
            raise ConfigError(
                f"num_output ({num_output}) must be smaller than context_window ({context_window})"
            )
        self.max_sentences = max_sentences
        self.context_window = context_window
        self.num_output = num_output

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        reply = extractive_reply(messages, max_sentences=self.max_sentences)
        # Word by word, so streaming views behave as they do with a real model.
        yield from re.findall(r"\s*\S+", reply) or [reply]

    def __repr__(self) -> str:
        return f"ExtractiveLLM(max_sentences={self.max_sentences})"


def extractive_reply(messages: Sequence[Message], *, max_sentences: int = 3) -> str:
    """The reply to ``messages``, by prompt kind (see the module docstring)."""
    messages = [m for m in messages if m.content is not None]
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    if _is_react(system):
        return react_reply(system, messages, limit=max_sentences)
    users = [m for m in messages if m.role == "user"]
    current = users[-1] if users else (messages[-1] if messages else None)
    last = current.content if current else ""
    reply = _reply_to_template(read_sections(last), system, limit=max_sentences)
    if reply is not None:
        return reply
    # A chat turn: answer the last message from the context in the system prompt if there is
    # one (context chat), else from whatever else the messages hold, if any of it matches.
    topic = topic_of([m.content for m in users[:-1]])
    context = read_sections(system).get(CONTEXT)
    if context is None:
        context = "\n\n".join(m.content for m in messages if m is not current)
        sentences = split_sentences(strip_labels(context))
        if not select_sentences(sentences, last, limit=1, background=topic):
            return NEEDS_DOCUMENTS
    return answer_from(context, last, limit=max_sentences, background=topic)


def _reply_to_template(sections: dict[str, str], system: str, *, limit: int) -> str | None:
    """The reply to one of the templates of ``ragcore.prompts``, or None if it is none of them."""
    if CONVERSATION in sections and FOLLOW_UP in sections:
        history = _history_questions(sections[CONVERSATION])
        return make_standalone(sections[FOLLOW_UP], history)
    if EXISTING_ANSWER in sections and NEW_CONTEXT in sections:
        return refine_reply(sections[EXISTING_ANSWER], sections[NEW_CONTEXT],
                            sections.get(QUESTION, ""), limit=limit)
    if QUESTION not in sections:
        return None
    if CONTEXT not in sections:
        return NEEDS_DOCUMENTS
    centrality = 0.3 if system.strip() == SUMMARY.system else 0.0
    return answer_from(sections[CONTEXT], sections[QUESTION], limit=limit, centrality=centrality)


def strip_labels(text: str) -> str:
    """``text`` without the label lines of our own earlier answers (tree levels, refine, tools)."""
    return _OUR_LABEL_LINE.sub("", text)


def quote_reply(sentences: Sequence[str], *, summary: bool = False) -> str:
    """Our answer format: the label, then one quoted sentence per line."""
    what = "representative" if summary else "relevant"
    lines = [f"{LABEL}. The most {what} sentences from the documents:"]
    lines += [f"- {s}" for s in sentences]
    return "\n".join(lines)


def answer_from(
    context: str, question: str, *, limit: int, centrality: float = 0.0, background: str = ""
) -> str:
    """Quote up to ``limit`` sentences of ``context`` for ``question`` (``background``: its topic,
    when the question is a follow-up that only refers to it)."""
    sentences = split_sentences(strip_labels(context))
    if not sentences:
        return NEEDS_DOCUMENTS
    chosen = select_sentences(sentences, question, limit=limit, centrality=centrality,
                              background=background)
    if chosen:
        summary = is_summary_request(question)
        if summary:
            chosen.sort()  # an overview reads best in the documents' order
        return quote_reply([sentences[i] for i in chosen], summary=summary)
    central = centrality_scores(sentences)
    closest = sentences[max(range(len(sentences)), key=lambda i: (central[i], -i))]
    return (
        f"{LABEL}: no sentence in the passages shares a word with the question, so there is "
        f"nothing to quote as an answer. The passages are mostly about:\n- {closest}"
    )


def refine_reply(existing: str, new_context: str, question: str, *, limit: int) -> str:
    """Keep the existing answer, adding better-matching sentences from the new context."""
    kept = split_sentences(strip_labels(existing))
    fresh = split_sentences(strip_labels(new_context))
    candidates = kept + [s for s in fresh if s not in kept]
    if not candidates:
        return existing
    chosen = select_sentences(candidates, question, limit=limit)
    if not chosen or all(i < len(kept) for i in chosen):
        return existing if existing.strip() else answer_from(new_context, question, limit=limit)
    return quote_reply([candidates[i] for i in chosen])


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


def _history_questions(history: str) -> list[str]:
    """The user messages of a condense prompt's ``role: text`` conversation lines."""
    turns: list[list[str]] = []
    for line in history.splitlines():
        match = _HISTORY_LINE.match(line)
        if match:
            turns.append([match.group(1), match.group(2)])
        elif turns:
            turns[-1][1] += "\n" + line
    return [text for role, text in turns if role == "user"]


# --- ReAct ---------------------------------------------------------------------------------

def _is_react(system: str) -> bool:
    return "Action Input:" in system and _OBSERVATION in system


def react_reply(system: str, messages: Sequence[Message], *, limit: int) -> str:
    """First step: search with the first tool. After an observation: answer by quoting it."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    asks = [i for i in users if not _is_observation(messages[i])]
    current = asks[-1] if asks else -1
    question = messages[current].content.strip() if asks else ""
    topic = topic_of([messages[i].content for i in asks[:-1]])
    observations = [
        messages[i].content.lstrip()[len(_OBSERVATION):].strip()
        for i in users if i > current and _is_observation(messages[i])
    ]
    if observations:
        answer = answer_from("\n\n".join(observations), question, limit=limit, background=topic)
        return f"Thought: I can answer without using any more tools.\nAnswer: {answer}"
    question = make_standalone(question, [messages[i].content for i in asks[:-1]])
    tool, argument = _first_tool(system)
    if not tool:
        return f"Thought: I have no tool to search the documents with.\nAnswer: {NEEDS_DOCUMENTS}"
    action_input = json.dumps({argument: question}, ensure_ascii=False)
    return f"Thought: I need to search the documents.\nAction: {tool}\nAction Input: {action_input}"


def _is_observation(message: Message) -> bool:
    return message.content.lstrip().startswith(_OBSERVATION)


def _first_tool(system: str) -> tuple[str, str]:
    """The first tool's name and the name of its (first required) argument."""
    names = _TOOL_LINE.findall(system)
    if not names:
        choices = _TOOL_CHOICES.search(system)
        names = [n.strip() for n in choices.group(1).split(",") if n.strip()] if choices else []
    if not names:
        return "", ""
    argument = "input"
    schema_match = _TOOL_ARGS.search(system)
    if schema_match:
        try:
            schema = json.loads(schema_match.group(1))
        except ValueError:
            schema = {}
        required = schema.get("required") or list(schema.get("properties") or {})
        argument = required[0] if required else argument
    return names[0], argument
