"""Each answer a new question to the model's prompt cache, as a person's next question is.

A benchmark asks the same few questions again and again, and llama.cpp's slots keep the prompt
they read last (``cache_prompt``): a repeated question would be read from the cache. A person's
next question shares with the one before only what every answer prompt shares, the system
message, which comes first (``prompts.answer``). ``Visits`` puts a fresh nonce at the start of
each answer's first user message, after the system message, so the cache keeps for the
benchmark exactly what it keeps for a person; every call of one answer (the gate, the answer,
the judge) carries the same nonce, as their shared prefix would. A process's first question, or
the first after the model reloads with other threads, still reads the system message too.

    with Visits(llm) as visits:
        visits.renew()  # before each answer
"""

from __future__ import annotations

import secrets
from typing import Any, Callable


class Visits:
    """Patches ``llm``'s engine while the block runs: each request's first user message starts
    with the current nonce (``renew`` draws the next)."""

    def __init__(self, llm: Any) -> None:
        self.engine = llm._engine  # shared by the engines' copies of the LLM
        self.nonce = secrets.token_hex(4)

    def __enter__(self) -> Visits:
        for name in ("stream", "complete"):
            setattr(self.engine, name, self._marking(getattr(self.engine, name)))
        return self

    def __exit__(self, *exc: object) -> None:
        del self.engine.stream, self.engine.complete  # the class's own methods again

    def renew(self) -> None:
        self.nonce = secrets.token_hex(4)

    def _marking(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def marked(body: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
            return call({**body, "messages": self.marked(body["messages"])}, *args, **kwargs)
        return marked

    def marked(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``messages`` (wire form) with the nonce opening the first user message."""
        out = list(messages)
        for at, message in enumerate(out):
            if message.get("role") == "user" and isinstance(message.get("content"), str):
                out[at] = {**message, "content": f"(Visit {self.nonce}.)\n{message['content']}"}
                break
        return out
