"""Token-limited chat memory, owned by the caller and passed to each chat call.

``ChatMemory`` stores every message it is given and hands out the newest part that fits a token
budget: ``get(extra_tokens=n)`` returns at most ``token_limit - n`` tokens of messages. System
messages are always kept; then whole turns (a user message and every assistant/tool message after
it) are taken newest first, so no tool message loses the call it answers. If even the newest turn
does not fit, its largest messages are cut in the middle with a visible note instead of failing.

Retry policy: engines add the user's message when a turn starts (``put_user_message``) and the
assistant's reply only when its stream completes. A failed turn therefore leaves the user message
unanswered at the end; sending the same text again is a retry and does not add it twice.

Engines place the user's latest message in the prompt themselves and ask ``earlier`` for what
came before it, within the room ``ragcore.prompt_budget`` leaves them: ``token_limit`` caps the
conversation a prompt carries, never the passages or tool results beside it. ``get`` is the plain
buffer view (everything newest first within the limit).

The limit is fixed, not a share of the model's window: by default ``DEFAULT_TOKEN_LIMIT``, the
latest turn or so, and ``from_llm`` goes below it only for a model whose window is smaller. What
a prompt reads of the conversation then costs the same at the twentieth question as at the
second (issue 65: with three quarters of the packaged model's window, each turn read ~85 tokens
more than the last, up to ~1,200, and the 15th-18th answers took 2.8 times the 2nd-4th). A
caller who wants a longer memory in every prompt passes ``token_limit``; ``earlier(turns=)``
bounds it to the newest turns (a context chat's answer carries the latest alone).

Engines are stateless; the app keeps one ``ChatMemory`` per conversation (in session state) and
saves it with ``to_json``.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Sequence

from .errors import ConfigError
from .prompts import message_tokens
from .tokens import count_tokens, get_tokenizer
from .types import Message

# The conversation one prompt carries, the user's latest message included: the latest turn
# whole when its reply is short, its reply cut in the middle when long (a reply is at most the
# model's num_output: 384 tokens for the packaged model).
DEFAULT_TOKEN_LIMIT = 256
MIN_KEPT_TOKENS = 16  # a truncated message keeps at least this much text
NOTE_TOKENS = 24  # room for the truncation note
MEMORY_FORMAT = "ragcore-chat-memory"


def _truncation_note(removed: int) -> str:
    return f"\n[... {removed} tokens cut here to fit the chat memory limit ...]\n"


class ChatMemory:
    """The messages of one conversation, handed out newest first within a token budget."""

    def __init__(self, *, token_limit: int | None = None) -> None:
        limit = DEFAULT_TOKEN_LIMIT if token_limit is None else token_limit
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 64:
            raise ConfigError(f"token_limit ({token_limit!r}) must be an integer of at least 64")
        self.token_limit = limit
        self._messages: list[Message] = []
        self._tokens: list[int | None] = []  # cached token counts, aligned with _messages

    @classmethod
    def from_llm(cls, llm: Any, *, fraction: float = 0.75) -> ChatMemory:
        """A memory of ``DEFAULT_TOKEN_LIMIT`` tokens, or of ``fraction`` of what the LLM can
        read besides its reply when that is less."""
        if not 0 < fraction <= 1:
            raise ConfigError(f"fraction ({fraction}) must be in (0, 1]")
        available = int(llm.context_window) - int(llm.num_output)
        if available < 64:
            raise ConfigError(
                f"the LLM {getattr(llm, 'model', '?')!r} leaves {available} tokens for the "
                "prompt (context_window - num_output); raise its context_window"
            )
        return cls(token_limit=max(64, min(DEFAULT_TOKEN_LIMIT, int(available * fraction))))

    @property
    def messages(self) -> list[Message]:
        """Every stored message, oldest first (a copy; nothing is dropped from storage)."""
        return list(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def put(self, message: Message) -> None:
        if not isinstance(message, Message):
            raise TypeError(f"ChatMemory.put needs a Message, got {type(message).__name__}")
        self._messages.append(message)
        self._tokens.append(None)

    def put_user_message(self, content: str) -> None:
        """Start a turn; re-sending an unanswered last message (a retry) does not duplicate it."""
        last = self._messages[-1] if self._messages else None
        if last is not None and last.role == "user" and last.content == content:
            return
        self.put(Message("user", content))

    def reset(self) -> None:
        self._messages.clear()
        self._tokens.clear()

    def get(self, *, extra_tokens: int = 0, max_tokens: int | None = None) -> list[Message]:
        """The newest messages fitting the budget (system messages first).

        The budget is ``token_limit - extra_tokens``: ``extra_tokens`` is what the caller adds
        to the prompt (system prompt, context). ``max_tokens`` caps the whole prompt further,
        e.g. at the model's ``context_window - num_output`` when that is below the limit.
        The latest message counts like any other: engines use ``earlier`` instead.
        """
        limit = self.token_limit if max_tokens is None else min(self.token_limit, max_tokens)
        return self._fit(range(len(self._messages)), limit - max(0, extra_tokens))

    def earlier(self, latest: str, *, budget: int, turns: int | None = None) -> list[Message]:
        """The conversation before the user's latest message ``latest``, fitted for a prompt.

        The prompt places ``latest`` itself: it is a fixed part of ``ragcore.prompt_budget``'s
        rule, never cut or dropped. What comes before it gets at most ``budget`` tokens and at
        most ``token_limit`` less the latest message: system messages, then whole turns, newest
        first, at most ``turns`` of them when given.
        """
        end = len(self._messages)
        if end and self._messages[-1].role == "user" and self._messages[-1].content == latest:
            end -= 1
        cap = self.token_limit - message_tokens(Message("user", latest))
        return self._fit(range(end), min(budget, cap), turns)

    def token_count(self) -> int:
        """Tokens of every stored message (what ``get`` would need without a limit)."""
        return sum(self._count(i) for i in range(len(self._messages)))

    # ---- internals --------------------------------------------------------------------------

    def _fit(self, indexes: range, budget: int, turns: int | None = None) -> list[Message]:
        """The messages at ``indexes`` within ``budget``: system ones, then newest whole turns
        (at most ``turns`` of them when given)."""
        system = [i for i in indexes if self._messages[i].role == "system"]
        system_msgs = self._fit_messages(system, max(budget // 2, 0))
        budget -= sum(self._size(m) for m in system_msgs)
        others = [i for i in indexes if self._messages[i].role != "system"]
        kept: list[Message] = []
        grouped = _turns(self._messages, others)
        for turn in reversed(grouped if turns is None else grouped[max(0, len(grouped) - turns):]):
            size = sum(self._count(i) for i in turn)
            if size > budget:
                if not kept:
                    kept = self._fit_messages(turn, budget)
                break
            kept = [self._messages[i] for i in turn] + kept
            budget -= size
        return system_msgs + kept

    def _count(self, index: int) -> int:
        cached = self._tokens[index]
        if cached is None:
            cached = self._size(self._messages[index])
            self._tokens[index] = cached
        return cached

    _size = staticmethod(message_tokens)

    def _fit_messages(self, indexes: Sequence[int], budget: int) -> list[Message]:
        """Messages of one turn (or the system messages) cut down to ``budget`` tokens."""
        messages = [self._messages[i] for i in indexes]
        sizes = [self._count(i) for i in indexes]
        # First drop tool rounds (a call and its results) from the middle of the turn, oldest
        # first, then cut the largest messages; the first message (the user's) goes last.
        removed = 0
        for start, end in _tool_rounds(messages):
            if sum(sizes) <= budget:
                break
            del messages[start - removed : end - removed], sizes[start - removed : end - removed]
            removed += end - start
        while messages and sum(sizes) > budget:
            over = sum(sizes) - budget
            texts = [count_tokens(m.content) for m in messages]
            largest = max(range(len(messages)), key=texts.__getitem__)
            # Each cut shrinks the total by at least ``over``: the loop always ends.
            keep = texts[largest] - over - NOTE_TOKENS
            if keep >= MIN_KEPT_TOKENS:
                messages[largest] = _truncate(messages[largest], keep)
                sizes[largest] = self._size(messages[largest])
            elif len(messages) > 1 and not messages[0].tool_calls:
                messages, sizes = messages[:1], sizes[:1]  # the user's message, alone
            else:
                return []
        return messages

    # ---- serialization ----------------------------------------------------------------------

    def to_json(self) -> str:
        payload = {
            "format": MEMORY_FORMAT,
            "version": 1,
            "token_limit": self.token_limit,
            "messages": [m.to_dict() for m in self._messages],
        }
        return json.dumps(payload, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> ChatMemory:
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise ConfigError(f"chat memory JSON cannot be read: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != MEMORY_FORMAT:
            raise ConfigError(
                "this JSON is not a ragcore chat memory (no 'format': "
                f"{MEMORY_FORMAT!r}); save one with ChatMemory.to_json()"
            )
        memory = cls(token_limit=data.get("token_limit"))
        for item in data.get("messages", []):
            memory.put(Message.from_dict(item))
        return memory

    def __repr__(self) -> str:
        return f"ChatMemory(token_limit={self.token_limit}, messages={len(self._messages)})"


def _turns(messages: Sequence[Message], indexes: list[int]) -> list[list[int]]:
    """Group non-system message indexes into turns, each starting at a user message."""
    turns: list[list[int]] = []
    for index in indexes:
        if not turns or messages[index].role == "user":
            turns.append([index])
        else:
            turns[-1].append(index)
    return turns


def _tool_rounds(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Spans (start, end) of whole tool rounds (a call and its results), oldest first, that
    neither include the first message nor the last one."""
    spans: list[tuple[int, int]] = []
    i = 1
    while i < len(messages) and messages[i].role == "tool":
        i += 1  # results of a call made by the first message stay with it
    while i < len(messages):
        if not (messages[i].tool_calls or messages[i].role == "tool"):
            i += 1
            continue
        end = i + 1
        while end < len(messages) and messages[end].role == "tool":
            end += 1
        if end < len(messages):
            spans.append((i, end))
        i = end
    return spans


def _truncate(message: Message, keep_tokens: int) -> Message:
    """The message with its middle cut out, keeping ``keep_tokens`` tokens of head and tail."""
    tokenizer = get_tokenizer()
    tokens = tokenizer.encode(message.content)
    if len(tokens) <= keep_tokens:
        return message
    head = keep_tokens * 2 // 3
    tail = keep_tokens - head
    text = (
        tokenizer.decode(tokens[:head])
        + _truncation_note(len(tokens) - keep_tokens)
        + (tokenizer.decode(tokens[-tail:]) if tail else "")
    )
    return replace(message, content=text)
