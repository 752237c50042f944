"""The extractive backend: the model-free fallback when no language model can run.

There is no model, and the prompt is not read: the engines hand each call's structured request
(``types.AnswerRequest``, through ``with_request``: see ``llms.base.answering``) and the reply
answers it by quoting the sentences of its passages that answer its question. So a user's own
templates or system prompt change nothing it understands. It never invents text, and its
answers say that they are extractive.

    request kind       reply
    qa                 the answer first (style direct)
    simple_summarize   the answer, then the rest in order (one_pass)
    summary (tree)     each passage's best, merged (merge)
    refine             the existing answer, improved from the new passages
    condense           the follow-up made standalone from the earlier user messages
    generation         says it needs documents (NEEDS_DOCUMENTS)
    context_chat       quotes for the latest message (NOT_FOUND when nothing was retrieved)
    react              search with the first tool, then quote this turn's observations
    chat               says chatting needs a model (CHAT_NEEDS_MODEL): no passages come
    no request         NEEDS_DOCUMENTS: a call that states no request (``complete(llm,
                       "...")``, question generation, any prompt of a caller passing none)
                       gets no passages, so there is nothing to quote

Callers whose prompts need free text (query rewriting, HyDE, routing, reranking, judging,
titles) do not ask it at all (``llms.base.writes_free_text``).

The conversation is never quoted: in a chat only the passages are documents; earlier user
messages only tell what a follow-up ("and its size?") is about.

Sentences are chosen by meaning when the backend has an embedder (``embedder=``, or
``with_embedder``: the index's engines hand theirs to an LLM that offers it, so a query engine
over an index ranks with the model already loaded) and by words alone without one
(``rank``). The same request always gives the same reply.

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

from ...errors import ConfigError
from ...types import AnswerRequest, Message
from .answer import (
    CHAT_NEEDS_MODEL,
    LABEL,
    NEEDS_DOCUMENTS,
    NOT_FOUND,
    answer,
    refine,
    strip_labels,
)
from .condense import main_noun_phrase, make_standalone, topic_of

__all__ = ["CHAT_NEEDS_MODEL", "LABEL", "NEEDS_DOCUMENTS", "NOT_FOUND", "ExtractiveLLM",
           "extractive_reply", "main_noun_phrase", "make_standalone", "strip_labels"]

# The prompts join passages with a blank line; joined the same way, they read as they were sent.
_PASSAGE_JOIN = "\n\n"
_STYLES = {"qa": "direct", "simple_summarize": "one_pass", "summary": "merge"}


class ExtractiveLLM:
    """Answers a request by quoting the sentences of its passages that answer its question.

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
        if embedder is not None:
            _check_embedder(embedder)
        self.max_sentences = max_sentences
        self.context_window = context_window
        self.num_output = num_output
        self.embedder = embedder
        self.notes: dict | None = None  # where replies state their score (``with_notes``)
        self.request: AnswerRequest | None = None  # what replies answer (``with_request``)

    def with_embedder(self, embedder: Any) -> ExtractiveLLM:
        """This backend ranking with ``embedder``; itself if it already has one."""
        if self.embedder is not None or embedder is None:
            return self
        _check_embedder(embedder)
        ranking = copy.copy(self)
        ranking.embedder = embedder
        return ranking

    def with_notes(self, notes: dict) -> ExtractiveLLM:
        """This backend stating each reply's answer score in ``notes`` (a turn's trace notes)."""
        noting = copy.copy(self)
        noting.notes = notes
        return noting

    def with_request(self, request: AnswerRequest) -> ExtractiveLLM:
        """This backend answering ``request`` (the structure of the messages it will get)."""
        answering = copy.copy(self)
        answering.request = request
        return answering

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        """The reply to this backend's request; ``messages`` (the prompt a model would read,
        which the trace records) are not read. With no request: ``NEEDS_DOCUMENTS``."""
        reply = extractive_reply(self.request, max_sentences=self.max_sentences,
                                 embedder=self.embedder, notes=self.notes)
        # Word by word, so streaming views behave as they do with a real model.
        yield from re.findall(r"\s*\S+", reply) or [reply]

    def __repr__(self) -> str:
        by = "meaning and words" if self.embedder is not None else "words"
        return f"ExtractiveLLM(max_sentences={self.max_sentences}, ranks by {by})"


def _check_embedder(embedder: Any) -> None:
    if not callable(getattr(embedder, "embed_batch", None)):
        raise ConfigError(
            f"embedder must have embed_batch(texts) (a ragcore Embedder), got {embedder!r}"
        )


def extractive_reply(
    request: AnswerRequest | None, *, max_sentences: int = 3, embedder: Any = None,
    notes: dict | None = None,
) -> str:
    """The reply to ``request``, by its kind (see the module docstring); an answer that judged
    the question states its score in ``notes``."""
    if request is None:
        return NEEDS_DOCUMENTS
    kind, question = request.kind, request.question.strip()
    context = _PASSAGE_JOIN.join(request.passages).strip()
    earlier = _asked_before(request)
    options = dict(limit=max_sentences, embedder=embedder, notes=notes)
    if kind in _STYLES:
        return answer(context, question, style=_STYLES[kind], **options)
    if kind == "refine":
        return refine(request.existing_answer.strip(), context, question, **options)
    if kind == "condense":
        return make_standalone(question, earlier)
    if kind == "react":
        return react_reply(request, **options)
    if kind == "context_chat" and question:
        if not request.passages:  # retrieval found nothing, or nothing fitted
            return NOT_FOUND
        return answer(context, question, background=topic_of(earlier), **options)
    if kind == "generation":
        return NEEDS_DOCUMENTS
    return CHAT_NEEDS_MODEL  # simple chat: only the conversation, which is no document


def _asked_before(request: AnswerRequest) -> list[str]:
    """The user's earlier messages: what a follow-up may refer to, never a document."""
    return [m.content for m in request.conversation if m.role == "user" and m.content]


def react_reply(request: AnswerRequest, *, limit: int, embedder: Any = None,
                notes: dict | None = None) -> str:
    """First step: search with the first tool. After an observation: answer by quoting it."""
    question, earlier = request.question.strip(), _asked_before(request)
    if request.passages:
        reply = answer(_PASSAGE_JOIN.join(request.passages), question, limit=limit,
                       embedder=embedder, background=topic_of(earlier), notes=notes)
        return f"Thought: I can answer without using any more tools.\nAnswer: {reply}"
    if not request.tools:
        return f"Thought: I have no tool to search the documents with.\nAnswer: {NEEDS_DOCUMENTS}"
    tool, argument = request.tools[0]
    action_input = json.dumps({argument: make_standalone(question, earlier)}, ensure_ascii=False)
    return f"Thought: I need to search the documents.\nAction: {tool}\nAction Input: {action_input}"
