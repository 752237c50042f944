"""The packaged model's latest exchanges, so a question about an answer reads only itself.

A slot keeps the tokens of the prompt it read last (``cache_prompt``) and reuses them for the
next prompt as far as it agrees. A question about the answer just written (the grounding
verdict's "Do the passages state this claim?") asked in that answer's own prompt, its cue line
replaced (``prompts.answer.asked_instead``), agrees with all of it but the last line: the slot
reads ~40 tokens, where the question asked afresh with a passage reads ~300 (1-4 s on two busy
cores). ``Exchanges`` keeps the prompts of an engine's last few replies, by the reply; an
answer it did not write (another model's, an evicted one, one from before a restart) gets None,
and the caller asks afresh. The reply itself is not shown again: asked as the next turn after
its own answer, the model agreed with it (on the labelled claims, "Yes" weighed a third as much,
and 83 % of what it vouched for was right, against 91 % asked afresh).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Sequence

from ...types import Message

KEPT = 16  # exchanges remembered per engine: a few people's last answers
MATCHED_CHARS = 120  # an answer is its exchange's when their first characters agree this far


class Exchanges:
    """The prompts of one engine's last ``KEPT`` replies, by the reply they wrote."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._by_reply: OrderedDict[str, tuple[Message, ...]] = OrderedDict()

    def keep(self, messages: Sequence[Message], reply: str) -> None:
        """Remember that ``messages`` were answered with ``reply`` (continuing the assistant's
        prefill when the messages end with one)."""
        prefill = messages[-1].content if messages and messages[-1].role == "assistant" else ""
        key = _key(prefill + reply)
        if not key:
            return
        with self._lock:
            self._by_reply.pop(key, None)
            self._by_reply[key] = tuple(messages)
            while len(self._by_reply) > self._kept:
                self._by_reply.popitem(last=False)

    def prompt_of(self, answer: str) -> list[Message] | None:
        """The messages that were answered with ``answer`` (without an assistant prefill), or
        None when none of the kept exchanges wrote it. The answer as shown may have lost the
        reply's emphasis or spacing; its first ``MATCHED_CHARS`` characters, so normalised,
        must agree."""
        key = _key(answer)
        if not key:
            return None
        with self._lock:
            messages = self._by_reply.get(key)
        if messages is None:
            return None
        return list(messages[:-1] if messages and messages[-1].role == "assistant" else messages)


def _key(text: str) -> str:
    return " ".join(text.replace("*", "").split())[:MATCHED_CHARS]
