"""Each answer a new question to the model's prompt cache, as a person's next question is.

A benchmark asks the same few questions again and again, and llama.cpp's slots keep the prompt
they read last (``cache_prompt``): a repeated question would be read from the cache. A person's
next question shares with the one before what every answer prompt shares: the system message,
which comes first (``prompts.answer``), and the context's opening, its label and the first
passage's file name when it is the same file. ``Visits`` puts a short nonce (a counter: the
cache lives in the process) where that shared opening ends, before the first passage's text,
so the cache keeps for the benchmark what it keeps for a person and the answer reads two or
three tokens more than a person's. Until 2026-11-29 it was "(Visit 4ea72005.)" at the start of
the user message: ~10 tokens of nonce and the ~10 of the context's opening read anew by every
answer, by no person's (0.5-0.7 s on a machine reading 30 tokens a second). Every call of one
answer (the gate, the answer, the judge) carries the same nonce, as their shared prefix would.
A process's first question, or the first after the model reloads with other threads, still
reads the system message too.

    with Visits(llm) as visits:
        visits.renew()  # before each answer
"""

from __future__ import annotations

import itertools
from typing import Any, Callable

from ragcore.prompts import CONTEXT

_NUMBERS = itertools.count(1)  # the process's: a new ``Visits`` (one per answer) draws on


class Visits:
    """Patches ``llm``'s engine while the block runs: each request's first user message holds
    the current nonce (``placed``; ``renew`` draws the next)."""

    def __init__(self, llm: Any) -> None:
        self.engine = llm._engine  # shared by the engines' copies of the LLM
        self.nonce = f"v{next(_NUMBERS)}"

    def __enter__(self) -> Visits:
        for name in ("stream", "complete"):
            setattr(self.engine, name, self._marking(getattr(self.engine, name)))
        return self

    def __exit__(self, *exc: object) -> None:
        del self.engine.stream, self.engine.complete  # the class's own methods again

    def renew(self) -> None:
        self.nonce = f"v{next(_NUMBERS)}"

    def _marking(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def marked(body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            return call({**body, "messages": self.marked(body["messages"])}, *args, **kwargs)
        return marked

    def marked(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` (wire form) with the nonce in the first user message."""
        out = list(messages)
        for at, message in enumerate(out):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                out[at] = {**message, "content": self.placed(message["content"])}
                break
        return out

    def placed(self, content: str) -> str:
        """``content`` with the nonce after the context's opening ("Context:" and the first
        passage's metadata lines, up to the first blank line), else first."""
        opening, blank, rest = content.partition("\n\n")
        if content.startswith(CONTEXT) and blank:
            return f"{opening}\n\n({self.nonce})\n{rest}"
        return f"({self.nonce})\n{content}"
