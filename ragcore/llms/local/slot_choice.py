"""Which of the engine's slots a request goes to: the one whose cached prompt it continues.

A slot keeps the prompt it read last (``cache_prompt``) and reuses it as far as the next prompt
in it begins the same way. llama.cpp chooses a slot for a request by the share of the prompt an
idle slot holds (above ``slot_prompt_similarity``), else the one unused longest; a chat's short
follow-up rewrite (~95 tokens) shares only the template's opening (~4 tokens) with any slot, so
it could land in the slot holding the last answer's prompt, and the next answer then read its
whole prompt anew (issue 65: 541 tokens with 4 cached). So the engine chooses, and pins the
request there (llama.cpp's ``id_slot``):

- a prompt that begins like a free slot's held prompt for at least ``MIN_SHARED_CHARS`` (the
  same instructions: the next answer, the check asked in an answer's prompt, the next rewrite)
  goes to the free slot it shares the most with;
- any other prompt (a title, a first rewrite) goes to the free slot whose prompt was continued
  longest ago, so the slot the latest answer continued keeps that answer's instructions;
- a busy slot is never chosen while another is free (a pinned request would wait for it), and
  with none free the request is not pinned (llama.cpp queues it).

Shares are counted in characters of the messages as sent (about four a token), a stand-in for
llama.cpp's tokens that needs no tokenizer: two prompts that agree on their first messages agree
on their first tokens too.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

# The least a prompt must share with a slot's to count as continuing it: more than the role and
# the first words every system message has ("You ..."), less than the shortest instructions
# (the chat's, ~200 characters).
MIN_SHARED_CHARS = 100


def prompt_text(body: dict[str, Any]) -> str:
    """An OpenAI chat ``body``'s prompt as one text: its tools (the template puts them first),
    then each message's role, content and tool calls, in order."""
    parts = [json.dumps(body["tools"], sort_keys=True)] if body.get("tools") else []
    for message in body.get("messages", ()):
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, sort_keys=True)
        parts.append(f"<{message.get('role')}>{text}")
        if message.get("tool_calls"):
            parts.append(json.dumps(message["tool_calls"], sort_keys=True))
    return "\n".join(parts)


class SlotChoice:
    """The prompt each slot holds, which slots run a request now, and the choice for the next.

    Thread-safe. ``take`` chooses and marks the slot busy; ``give_back`` frees it when its
    request has ended; ``emptied`` forgets every prompt (the weights were loaded again)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots ({slots}) must be at least 1")
        self._lock = threading.Lock()
        self._held = [""] * slots
        self._continued = [0] * slots  # when each slot's prompt was last continued (a count)
        self._clock = 0
        self._busy: set[int] = set()

    def take(self, prompt: str) -> int | None:
        """The slot for ``prompt``, now marked busy and holding it; None when every slot is
        busy (the request is left to llama.cpp's queue)."""
        with self._lock:
            free = [slot for slot in range(len(self._held)) if slot not in self._busy]
            if not free:
                return None
            shares = {slot: len(os.path.commonprefix([prompt, self._held[slot]]))
                      for slot in free}
            best = max(free, key=lambda slot: shares[slot])  # the first of equals
            if shares[best] < MIN_SHARED_CHARS:
                best = min(free, key=lambda slot: self._continued[slot])
            else:
                self._clock += 1
                self._continued[best] = self._clock
            self._held[best] = prompt
            self._busy.add(best)
            return best

    def give_back(self, slot: int | None) -> None:
        """``slot`` is free again (its request's work ended); None: nothing was taken."""
        if slot is None:
            return
        with self._lock:
            self._busy.discard(slot)

    def holds(self, slot: int, prompt: str) -> None:
        """``slot`` read ``prompt`` outside ``take`` (a primer pinned to it at load): it counts
        as continued now, so unrelated prompts go to the slots primed before it."""
        with self._lock:
            self._clock += 1
            self._held[slot], self._continued[slot] = prompt, self._clock

    def emptied(self) -> None:
        """Every slot's cache is empty (the weights were loaded again)."""
        with self._lock:
            self._held = [""] * len(self._held)
            self._continued = [0] * len(self._held)

    def held(self) -> list[str]:
        """What each slot holds now, by ragcore's record (tests, diagnostics)."""
        with self._lock:
            return list(self._held)
