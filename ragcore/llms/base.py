"""The LLM protocol: messages in, text chunks out. Streaming is the only path.

A backend implements ``stream(messages)`` as a generator of text chunks and states its
``context_window`` (tokens the model reads) and ``num_output`` (tokens reserved for its reply).
``num_output`` is one number with two uses: every prompt leaves that much of the window free
(``ragcore.prompt_budget``), and a server backend asks for no longer a reply (OpenAI's
``max_tokens``, Ollama's ``num_predict``), so a model cannot ramble to the end of its window.
A full reply is ``complete(llm, messages)``, which drains the same generator. LlamaIndex's
four call forms are free functions over ``stream`` too: ``complete`` and ``stream_complete``
take a prompt string (or messages), ``chat`` and ``stream_chat`` take messages and give the
assistant's ``Message`` (whole, or growing chunk by chunk).

Backends that support OpenAI-style tool calls also implement ``ToolCallingLLM.chat_with_tools``.
A backend that can end a reply at given strings offers ``with_stop(stop)`` returning a copy that
does (``stopping_at``): the ReAct loop asks for it so a model does not write the tool's
observation itself. A backend that knows something about its replies besides their text (the
extractive answerer: how sure it is of its answer) offers ``with_notes(notes)`` returning a copy
that states it in ``notes``; the engines hand it the turn's trace notes (``noting``).

A backend that answers from what a call asks rather than from its wording (the extractive
answerer) offers ``with_request(request)``, returning a copy that answers that
``types.AnswerRequest``: every engine builds the request beside the messages it formats and
hands it over with ``answering`` just before the call. The messages are still what is sent and
traced; a backend without the offer never sees a request.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence, runtime_checkable

from ..trace import Trace, traced_stream
from ..types import AnswerRequest, Message

DEFAULT_NUM_OUTPUT = 512  # tokens: a long answer, and a bound on how long a reply can run


def slow_reply_hint(num_output: int) -> str:
    """What to do when a server backend's reply outlasts its time limit (``request_timeout``)."""
    return (
        "Raise the time limit (request_timeout=..., or 'Time limit per reply' on the Settings "
        f"page), lower the reply cap (num_output, now {num_output} tokens), or use a smaller, "
        "faster model."
    )


@runtime_checkable
class LLM(Protocol):
    """A language model backend."""

    model: str  # shown in traces and the UI, e.g. "ollama:llama3.1" or "extractive"
    context_window: int
    num_output: int

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        """Yield the reply to ``messages`` chunk by chunk."""
        ...


@runtime_checkable
class ToolCallingLLM(LLM, Protocol):
    """A backend that can answer with tool calls (the OpenAI tools API)."""

    def chat_with_tools(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> Message:
        """Return the assistant message: text content and/or ``tool_calls``."""
        ...


def writes_free_text(llm: LLM) -> bool:
    """Whether ``llm`` can write new text (queries, passages, choices): every model can; the
    offline extractive backend only quotes the context it is given."""
    return getattr(llm, "model", "") != "extractive"


def stopping_at(llm: LLM, stop: Sequence[str]) -> LLM:
    """``llm`` ending its replies at any of ``stop``, when it offers that (``with_stop``);
    otherwise ``llm`` itself, whose callers must then cut the reply themselves."""
    offer = getattr(llm, "with_stop", None)
    return offer(list(stop)) if callable(offer) else llm


def noting(llm: LLM, notes: dict[str, Any]) -> LLM:
    """``llm`` stating what it knows of its replies in ``notes`` (a turn's ``trace.notes``),
    when it offers that (``with_notes``); otherwise ``llm`` itself."""
    offer = getattr(llm, "with_notes", None)
    return offer(notes) if callable(offer) else llm


def answering(llm: LLM, request: AnswerRequest | None) -> LLM:
    """``llm`` answering ``request`` (the structure of the messages it is about to get), when it
    offers that (``with_request``); otherwise, or with no request, ``llm`` itself."""
    offer = getattr(llm, "with_request", None)
    return offer(request) if request is not None and callable(offer) else llm


def complete(llm: LLM, messages: Sequence[Message] | str) -> str:
    """The whole reply: the joined chunks of ``llm.stream`` (a string is one user message)."""
    return "".join(stream_complete(llm, messages))


def stream_complete(llm: LLM, prompt: Sequence[Message] | str) -> Iterator[str]:
    """The reply's chunks; a string ``prompt`` is sent as one user message."""
    messages = [Message("user", prompt)] if isinstance(prompt, str) else list(prompt)
    return iter(llm.stream(messages))


def chat(llm: LLM, messages: Sequence[Message]) -> Message:
    """The assistant's whole reply to ``messages`` as a message."""
    return Message("assistant", complete(llm, messages))


def stream_chat(llm: LLM, messages: Sequence[Message]) -> Iterator[Message]:
    """The assistant's reply as it grows: each item holds the text so far (LlamaIndex's
    ``stream_chat``; the newest chunk is the difference from the previous item)."""
    text = ""
    for chunk in llm.stream(list(messages)):
        text += chunk
        yield Message("assistant", text)


def stream_traced(
    llm: LLM, messages: Sequence[Message], trace: Trace | None, purpose: str
) -> Iterator[str]:
    """``llm.stream`` recorded in ``trace`` as one LLM call (the way every engine calls an LLM).
    An LLM that fits itself to the machine (the packaged model: ``pace_note``) says in the
    trace's notes, once, what it chose and why (``model_pace``: threads, reading budget)."""
    messages = list(messages)
    note = getattr(llm, "pace_note", None)
    if trace is not None and callable(note) and "model_pace" not in trace.notes:
        trace.notes["model_pace"] = note()
    return traced_stream(llm.stream(messages), messages, trace, purpose, llm.model)


def complete_traced(
    llm: LLM, messages: Sequence[Message], trace: Trace | None, purpose: str
) -> str:
    """The whole reply, recorded in ``trace``."""
    return "".join(stream_traced(llm, messages, trace, purpose))
