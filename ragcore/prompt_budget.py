"""The one budgeting rule every prompt follows: the question always reaches the model, and every
prompt fits the model's window.

A prompt may use ``context_window - num_output`` tokens (``PromptBudget.limit``: the window less
the reply reserve). Its parts are of two kinds:

    fixed      the system prompt (a template's own text, an agent's tool descriptions) and the
               user's latest message: never cut, never dropped. When they alone exceed the limit,
               ``PromptTooLongError`` names each part's size and what to change (a shorter
               message, a model with a larger context window, a smaller num_output).
    flexible   what is left (the ``Room``) goes to these, in this order:
                 1. passages    retrieved text, best first (context chat: at least its
                                ``context_share`` of the room)
                 2. scratchpad  this turn's agent steps and tool outputs (at least
                                ``SCRATCHPAD_SHARE``): newest steps whole, the next one's tool
                                outputs clipped to their share, older steps summarised to their
                                action and the start of their result, the oldest left out
                 3. history     the earlier conversation, newest whole turns first, within
                                the memory's fixed ``token_limit`` (``ragcore.memory``; a
                                follow-up's rewrite reads only the latest turn): what a turn
                                reads does not grow with the chat

Each flexible part is offered its share of the room plus whatever the parts after it do not need
(``Room.offer``), uses what it can (``Room.take``), and the next part gets what is actually left.
Every cut or omission is written down (``Room.note``) and recorded in the trace under
``notes["prompt_budget"]``, so nothing is dropped silently.

Synthesis prompts follow the same rule with passages as their only flexible part, packed over as
many prompts as they need (``ragcore.synthesis.budget``). Token cutting (``truncate_to_tokens``,
``clip``) lives here because every prompt builder cuts text the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from .errors import PromptTooLongError
from .prompts import message_tokens
from .tokens import count_tokens, get_tokenizer
from .types import Message

if TYPE_CHECKING:
    from .trace import Trace

SCRATCHPAD_SHARE = 0.75  # the rest of the room is kept for the earlier conversation
CLIP_NOTE_TOKENS = 20  # room for the "[... n more tokens cut ...]" note of a clipped text
MIN_CLIPPED_TOKENS = 32  # a clipped tool output keeps at least this much, else it is summarised
SUMMARY_TOKENS = 40  # a summarised step keeps this much of each result (note included)
LEFT_OUT_NOTE_TOKENS = 40  # room for the note naming the steps that were left out
_BOUNDARY_LOOKBACK = 48  # how far back (in tokens) a cut may move to land on a word boundary


@dataclass(frozen=True, slots=True)
class PromptBudget:
    """What a model can read besides its reply: ``limit = context_window - num_output``."""

    context_window: int
    num_output: int

    @classmethod
    def of(cls, llm: Any) -> PromptBudget:
        return cls(int(llm.context_window), int(llm.num_output))

    @property
    def limit(self) -> int:
        return self.context_window - self.num_output

    def room(self, fixed: Mapping[str, int], *, prompt: str, at_least: int = 0) -> Room:
        """The tokens left for flexible parts once the ``fixed`` parts (name -> tokens) are in.

        Raises ``PromptTooLongError`` when fewer than ``at_least`` are left: the fixed parts
        cannot be cut, so only the caller can fix it.
        """
        total = sum(fixed.values())
        left = self.limit - total
        if left < at_least:
            parts = ", ".join(f"{name} {tokens:,}" for name, tokens in fixed.items())
            need = f", plus at least {at_least:,} for passages," if at_least else ""
            raise PromptTooLongError(
                f"{prompt} does not fit: its fixed parts take {total:,} tokens ({parts}){need} "
                f"but the model's context_window ({self.context_window:,}) less the "
                f"{self.num_output:,} tokens reserved for the reply (num_output) leaves "
                f"{self.limit:,}. Shorten the message or system prompt, use a model with a "
                "larger context_window, or lower num_output"
            )
        return Room(left)


@dataclass(slots=True)
class Room:
    """What is left of a prompt's budget while its flexible parts take their turns, in order."""

    left: int
    notes: list[str] = field(default_factory=list)

    def offer(self, need: int, *, share: float = 1.0, later: int = 0) -> int:
        """Tokens a part needing ``need`` may use: its ``share`` of what is left, or more when
        the parts after it need only ``later`` tokens."""
        cap = max(int(self.left * share), self.left - later)
        return max(0, min(need, cap))

    def take(self, used: int) -> None:
        self.left -= used

    def note(self, text: str) -> None:
        self.notes.append(text)

    def record(self, trace: Trace | None, prompt: str) -> None:
        """Put this prompt's notes into ``trace.notes["prompt_budget"]`` (nothing if none)."""
        if trace is not None and self.notes:
            shown = trace.notes.setdefault("prompt_budget", [])
            shown.extend(f"{prompt}: {n}" for n in self.notes)


def tokens_of(messages: Sequence[Message]) -> int:
    """Tokens the messages cost in a chat prompt (``prompts.message_tokens`` each)."""
    return sum(map(message_tokens, messages))


# ---- cutting text -------------------------------------------------------------------------------


def truncate_to_tokens(text: str, limit: int) -> tuple[str, int]:
    """The start of ``text`` within ``limit`` tokens (cut at a word boundary when one is
    near), and how many tokens were cut off."""
    tokenizer = get_tokenizer()
    ids = tokenizer.encode_ordinary(text)
    if len(ids) <= limit:
        return text, 0
    end = word_boundary(ids, 0, limit) if limit > 0 else 0
    while end > 0:
        # Decoding a token slice and re-encoding it can, rarely, tokenize differently: re-check.
        head = tokenizer.decode(ids[:end]).strip()
        count = count_tokens(head)
        if count <= limit:
            return head, len(ids) - count
        end -= count - limit
    return "", len(ids)


def clip(text: str, limit: int) -> str:
    """``text`` if it fits ``limit`` tokens, else its start and a note of how much was cut."""
    total = count_tokens(text)
    if total <= limit:
        return text
    keep = limit - CLIP_NOTE_TOKENS
    while keep >= 0:
        head, _ = truncate_to_tokens(text, keep)
        note = f"[... {total - count_tokens(head):,} more tokens cut to fit the context window]"
        clipped = f"{head}\n{note}" if head else note
        over = count_tokens(clipped) - limit
        if over <= 0:
            return clipped
        keep -= over
    return truncate_to_tokens(text, limit)[0]  # too little room even for the note


def word_boundary(ids: list[int], start: int, end: int) -> int:
    """The latest cut in (start, end] where the next token begins with whitespace."""
    tokenizer = get_tokenizer()
    floor = max(start + 1, end - _BOUNDARY_LOOKBACK)
    for cut in range(end, floor - 1, -1):
        if cut < len(ids) and tokenizer.decode([ids[cut]])[:1].isspace():
            return cut
    return end


# ---- the scratchpad -----------------------------------------------------------------------------


def split_steps(scratchpad: Sequence[Message]) -> list[list[Message]]:
    """The scratchpad as steps: each starts at the model's message (its action), followed by
    the results it got (ReAct's observation, or the tool messages of a function call)."""
    steps: list[list[Message]] = []
    for message in scratchpad:
        if message.role == "assistant" or not steps:
            steps.append([message])
        else:
            steps[-1].append(message)
    return steps


def fit_steps(scratchpad: Sequence[Message], budget: int, room: Room) -> list[Message]:
    """This turn's steps within ``budget`` tokens, noting in ``room`` what was cut.

    The newest steps come whole, in up to three quarters of the budget (more if the older steps
    need less); the first that does not fit has its tool outputs clipped to their share; older
    steps are summarised (their action and the start of each result) in what is left; when even
    the summaries do not fit, the oldest steps are left out, which a short message at the start
    says. A step is kept or left out whole, so a tool call never loses its result.
    """
    if tokens_of(scratchpad) <= budget:
        return list(scratchpad)
    steps = split_steps(scratchpad)
    summaries = [_summarised(step) for step in steps]
    sizes = [tokens_of(s) for s in summaries]
    older = sum(sizes[:-1]) + (LEFT_OUT_NOTE_TOKENS if len(steps) > 1 else 0)
    reserve = min(older, budget // 4)
    left, newest = budget - reserve, len(steps)
    while newest > 0 and tokens_of(steps[newest - 1]) <= left:
        newest -= 1
        left -= tokens_of(steps[newest])
    kept = steps[newest:]
    if newest > 0 and (clipped := _clipped(steps[newest - 1], left)) is not None:
        newest -= 1
        left -= tokens_of(clipped)
        kept.insert(0, clipped)
        room.note(f"step {newest + 1}: tool output clipped to fit")
    left += reserve
    first = newest
    while first > 0 and sizes[first - 1] + (LEFT_OUT_NOTE_TOKENS if first > 1 else 0) <= left:
        first -= 1
        left -= sizes[first]
    summarised = [n for n in range(first, newest) if summaries[n] != steps[n]]
    if summarised:
        room.note(f"steps {_numbers(n + 1 for n in summarised)} summarised to fit")
    fitted = [m for step in summaries[first:newest] + kept for m in step]
    if first == 0:
        return fitted
    room.note(f"steps {_numbers(range(1, first + 1))} left out to fit")
    note = _left_out_message(steps[:first])
    return [note, *fitted] if message_tokens(note) <= budget - tokens_of(fitted) else fitted


def _summarised(step: list[Message]) -> list[Message]:
    """The step's action (its text shortened; tool calls kept) and the start of each result."""
    action, *results = step
    action = replace(action, content=clip(action.content, 2 * SUMMARY_TOKENS))
    return [action, *(replace(r, content=clip(r.content, SUMMARY_TOKENS)) for r in results)]


def _clipped(step: list[Message], budget: int) -> list[Message] | None:
    """The step with its results clipped to share ``budget``, or None if a share is too small.

    Shares are fair: results smaller than an equal share keep all they need, and the others
    split what remains equally.
    """
    action, *results = step
    left = budget - message_tokens(action)
    order = sorted(range(len(results)), key=lambda i: message_tokens(results[i]))
    out = list(results)
    for rank, i in enumerate(order):
        share = left // (len(order) - rank)
        size = message_tokens(results[i])
        if size > share:
            limit = share - (size - count_tokens(results[i].content))
            if limit < MIN_CLIPPED_TOKENS:
                return None
            out[i] = replace(results[i], content=clip(results[i].content, limit))
        left -= message_tokens(out[i])
    return [action, *out]


def _left_out_message(steps: list[list[Message]]) -> Message:
    actions = []
    for step in steps:
        calls = [c.name for c in step[0].tool_calls]
        line = next((ln for ln in step[0].content.splitlines() if ln.startswith("Action:")), "")
        actions += calls or ([line.removeprefix("Action:").strip()] if line else [])
    named = f" (they called {', '.join(actions[:6])})" if actions else ""
    text = (
        f"[My first {len(steps)} steps in this turn are left out to fit the context window"
        f"{named}.]"
    )
    return Message("assistant", clip(text, LEFT_OUT_NOTE_TOKENS - 6))


def _numbers(numbers) -> str:
    numbers = list(numbers)
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(map(str, numbers))
