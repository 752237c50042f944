"""The extractive backend: the offline default when no language model is configured.

There is no model. ``extractive_reply`` reads the prompt, recognises which of our prompts it is
by the section markers and system messages of ``ragcore.prompts`` and the ReAct format of
``ragcore.agent``, and answers by quoting the sentences of the given context that answer the
question. It never invents text, and its answers say that they are extractive.

    prompt kind        recognised by                           reply
    qa                 "Context:" + "Question:" (user)         the answer first (style direct)
    simple_summarize   the same, its system message            the answer, then the rest in order
    summary (tree)     the same, its system message            each passage's best, merged
    refine             "Existing answer:" + "New context:"     the existing answer, improved
    condense           "Conversation:" + "Follow-up question:" the follow-up made standalone
    generation         "Question:" with no context             says it needs documents
    context chat       "Context:" in the system message        quotes for the last user message
    ReAct              "Action Input:" + "Observation:" (sys)  search once, then quote results
    other chat         -                                       says chatting needs a model

The conversation is never quoted: in a chat only the passages of the system message are
documents; earlier user messages only tell what a follow-up ("and its size?") is about.

Sentences are chosen by meaning when the backend has an embedder (``embedder=``, or
``with_embedder``: the index's engines hand theirs to an LLM that offers it, so a query engine
over an index ranks with the model already loaded) and by words alone without one
(``extractive_rank``). The same messages always give the same reply.

How sure it is that the passages answer the question (the answer score) is stated out of band:
the engines hand the turn's trace notes to an LLM offering ``with_notes`` (``llms.base.noting``),
and a reply that judged the question records its score there (``trace.notes["answer_score"]``).
The text only says what answered.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Iterator, Sequence

from ..errors import ConfigError
from ..prompts import (
    CONTEXT,
    CONVERSATION,
    EXISTING_ANSWER,
    FOLLOW_UP,
    NEW_CONTEXT,
    QUESTION,
    SIMPLE_SUMMARIZE,
    SUMMARY,
    read_sections,
)
from ..types import Message
from .extractive_answer import (
    CHAT_NEEDS_MODEL,
    LABEL,
    NEEDS_DOCUMENTS,
    NOT_FOUND,
    answer,
    refine,
    strip_labels,
)
from .extractive_condense import history_questions, main_noun_phrase, make_standalone, topic_of

__all__ = ["CHAT_NEEDS_MODEL", "LABEL", "NEEDS_DOCUMENTS", "NOT_FOUND", "ExtractiveLLM",
           "extractive_reply", "main_noun_phrase", "make_standalone", "strip_labels"]

_OBSERVATION = "Observation:"
_TOOL_LINE = re.compile(r"^> Tool:\s*(\S+)", re.MULTILINE)
_TOOL_ARGS = re.compile(r"^\s*Arguments \(JSON schema\):\s*(\{.*\})\s*$", re.MULTILINE)
_TOOL_CHOICES = re.compile(r"one of \[([^\]]*)\]")


class ExtractiveLLM:
    """Answers by quoting the sentences of the prompt's context that answer the question.

    ``embedder`` (optional, any ``ragcore.embeddings.Embedder``) ranks sentences by meaning as
    well as by words; it is called once per reply with the candidate sentences in one batch.
    """

    model = "extractive"

    def __init__(
        self,
        *,
        max_sentences: int = 3,
        context_window: int = 32768,
        num_output: int = 512,
        embedder: Any = None,
    ) -> None:
        for name, value in (("max_sentences", max_sentences), ("context_window", context_window),
                            ("num_output", num_output)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{name} ({value!r}) must be a positive integer")
        if num_output >= context_window:
            raise ConfigError(
                f"num_output ({num_output}) must be smaller than context_window ({context_window})"
            )
        if embedder is not None and not callable(getattr(embedder, "embed_batch", None)):
            raise ConfigError(
                f"embedder must have embed_batch(texts) (a ragcore Embedder), got {embedder!r}"
            )
        self.max_sentences = max_sentences
        self.context_window = context_window
        self.num_output = num_output
        self.embedder = embedder
        self.notes: dict | None = None  # where replies state their score (``with_notes``)

    def with_embedder(self, embedder: Any) -> ExtractiveLLM:
        """This backend ranking with ``embedder``; itself if it already has one."""
        if self.embedder is not None or embedder is None:
            return self
        ranking = ExtractiveLLM(max_sentences=self.max_sentences,
                                context_window=self.context_window, num_output=self.num_output,
                                embedder=embedder)
        ranking.notes = self.notes
        return ranking

    def with_notes(self, notes: dict) -> ExtractiveLLM:
        """This backend stating each reply's answer score in ``notes`` (a turn's trace notes)."""
        noting = copy.copy(self)
        noting.notes = notes
        return noting

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        reply = extractive_reply(messages, max_sentences=self.max_sentences,
                                 embedder=self.embedder, notes=self.notes)
        # Word by word, so streaming views behave as they do with a real model.
        yield from re.findall(r"\s*\S+", reply) or [reply]

    def __repr__(self) -> str:
        by = "meaning and words" if self.embedder is not None else "words"
        return f"ExtractiveLLM(max_sentences={self.max_sentences}, ranks by {by})"


def extractive_reply(
    messages: Sequence[Message], *, max_sentences: int = 3, embedder: Any = None,
    notes: dict | None = None,
) -> str:
    """The reply to ``messages``, by prompt kind (see the module docstring); an answer that
    judged the question states its score in ``notes``."""
    messages = [m for m in messages if m.content is not None]
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    if _is_react(system):
        return react_reply(system, messages, limit=max_sentences, embedder=embedder,
                           notes=notes)
    users = [m for m in messages if m.role == "user"]
    last = users[-1].content if users else ""
    reply = _reply_to_template(read_sections(last), system, limit=max_sentences,
                               embedder=embedder, notes=notes)
    if reply is not None:
        return reply
    context = read_sections(system).get(CONTEXT)
    if context is None or not last.strip():
        return CHAT_NEEDS_MODEL  # simple chat: only the conversation, which is no document
    topic = topic_of([m.content for m in users[:-1]])
    return answer(context, last, limit=max_sentences, embedder=embedder, background=topic,
                  notes=notes)


def _reply_to_template(
    sections: dict[str, str], system: str, *, limit: int, embedder: Any, notes: dict | None
) -> str | None:
    """The reply to one of the templates of ``ragcore.prompts``, or None if it is none of them."""
    if CONVERSATION in sections and FOLLOW_UP in sections:
        history = history_questions(sections[CONVERSATION])
        return make_standalone(sections[FOLLOW_UP], history)
    if EXISTING_ANSWER in sections and NEW_CONTEXT in sections:
        return refine(sections[EXISTING_ANSWER], sections[NEW_CONTEXT],
                      sections.get(QUESTION, ""), limit=limit, embedder=embedder, notes=notes)
    if QUESTION not in sections:
        return None
    if CONTEXT not in sections:
        return NEEDS_DOCUMENTS
    return answer(sections[CONTEXT], sections[QUESTION], limit=limit, embedder=embedder,
                  style=_style(system), notes=notes)


def _style(system: str) -> str:
    """Which answer style the prompt's system message asks for (it may start with the
    user's own system prompt, so only its end is compared)."""
    system = system.strip()
    if system.endswith(SUMMARY.system):
        return "merge"
    if system.endswith(SIMPLE_SUMMARIZE.system):
        return "one_pass"
    return "direct"


# --- ReAct ---------------------------------------------------------------------------------

def _is_react(system: str) -> bool:
    return "Action Input:" in system and _OBSERVATION in system


def react_reply(system: str, messages: Sequence[Message], *, limit: int, embedder: Any = None,
                notes: dict | None = None) -> str:
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
        reply = answer("\n\n".join(observations), question, limit=limit, embedder=embedder,
                       background=topic, notes=notes)
        return f"Thought: I can answer without using any more tools.\nAnswer: {reply}"
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
