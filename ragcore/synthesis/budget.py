"""The context budget and packing: how many context tokens a prompt has room for, and how
retrieved chunks are laid into prompts of that size.

available = context_window - num_output - prompt tokens (the template with empty context, the
question, and any reserved slot such as refine's existing answer): the rule of
``ragcore.prompt_budget`` with the passages as the only flexible part, so a question too long
for the window raises ``PromptTooLongError`` there, never a prompt without it. Chunks are packed
once per synthesis call: each chunk's tokens are counted once, whole chunks are laid greedily into
prompts, and only a chunk too large for a whole prompt is cut (at a word boundary, by tokens),
its first piece filling the room left in the current prompt. Nothing is dropped.

Unlike LlamaIndex's ``PromptHelper.repack`` (join everything, re-split with a token splitter,
and again per refine step), a chunk that fits stays whole in one prompt, so every passage the
model sees is a passage the user can find among the sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..prompt_budget import PromptBudget, word_boundary
from ..tokens import count_tokens, get_tokenizer

SEPARATOR = "\n\n"
# The separator is one token; one more covers a merge at either edge of the joined texts.
SEPARATOR_TOKENS = 2
# Below this many context tokens a prompt cannot carry a useful passage.
MIN_CONTEXT_TOKENS = 16
# A prompt's leftover room is worth filling with the start of an oversized chunk only when it
# is at least this fraction of the budget; otherwise the chunk starts a fresh prompt.
MIN_FILL_FRACTION = 0.25


def context_budget(
    *, context_window: int, num_output: int, prompt_tokens: int, prompt_name: str
) -> int:
    """Tokens left for context in a prompt (the flexible part of ``prompt_budget``'s rule), or
    ``PromptTooLongError`` when the prompt and question leave less than a useful passage.

    ``prompt_name`` describes the prompt in the error, e.g. "the 'qa' prompt".
    """
    budget = PromptBudget(context_window, num_output)
    fixed = {"prompt and question": prompt_tokens}
    return budget.room(fixed, prompt=prompt_name, at_least=MIN_CONTEXT_TOKENS).left


@dataclass(slots=True)
class Packing:
    """Texts laid into prompts: ``texts[i]`` fills one prompt with ``tokens[i]`` at most."""

    texts: list[str]
    tokens: list[int]
    cut_chunks: int = 0  # how many input chunks had to be cut to fit
    origins: list[list[int]] = field(default_factory=list)  # input chunks in each text


def count_each(texts: Sequence[str]) -> list[int]:
    """Token counts, one per text (the only tokenizing the hot path does)."""
    return [count_tokens(t) for t in texts]


def pack_chunks(texts: Sequence[str], counts: Sequence[int], budget: int,
                headers: Sequence[str] = ()) -> Packing:
    """Lay chunks greedily into as few prompts of ``budget`` tokens as whole chunks allow.

    ``headers[i]`` is the metadata header ``texts[i]`` starts with (``file_name: ...``): a chunk
    laid right after one with the same header in the same prompt drops it (the model reads
    "file_name: x" once for a run of its passages, ~9 tokens less each: a small model reads ~70
    tokens a second). Counts stay those of the whole texts, an upper bound.
    """
    packing = Packing([], [])
    current: list[str] = []
    origin: list[int] = []
    used = 0
    for number, (text, count) in enumerate(zip(texts, counts)):
        text = text.strip()
        if not text:
            continue
        cost = count + (SEPARATOR_TOKENS if current else 0)
        if used + cost <= budget:
            current.append(_without_repeat(text, number, origin, headers))
            origin.append(number)
            used += cost
            continue
        if count <= budget:
            _flush(packing, current, used, origin)
            current, used, origin = [text], count, [number]
            continue
        packing.cut_chunks += 1
        room = budget - used - SEPARATOR_TOKENS if current else budget
        fill = bool(current) and room >= budget * MIN_FILL_FRACTION
        pieces = split_by_tokens(text, budget, first_limit=room if fill else budget)
        if fill:
            current.append(_without_repeat(pieces[0][0], number, origin, headers))
            origin.append(number)
            used += SEPARATOR_TOKENS + pieces[0][1]
            pieces = pieces[1:]
        for piece, piece_count in pieces:
            _flush(packing, current, used, origin)
            current, used, origin = [piece], piece_count, [number]
    _flush(packing, current, used, origin)
    return packing


def _without_repeat(text: str, number: int, origin: list[int], headers: Sequence[str]) -> str:
    """``text`` without its header when the chunk before it in the prompt has the same one."""
    if not origin or number >= len(headers) or not headers[number]:
        return text
    header = headers[number]
    if headers[origin[-1]] != header or not text.startswith(header + SEPARATOR):
        return text
    return text[len(header) + len(SEPARATOR):]


def fit_each(texts: Sequence[str], counts: Sequence[int], budget: int) -> Packing:
    """One prompt per chunk (refine, accumulate): only chunks over ``budget`` are cut."""
    packing = Packing([], [])
    for number, (text, count) in enumerate(zip(texts, counts)):
        text = text.strip()
        if not text:
            continue
        pieces = [(text, count)] if count <= budget else split_by_tokens(text, budget)
        if count > budget:
            packing.cut_chunks += 1
        for piece, piece_count in pieces:
            packing.texts.append(piece)
            packing.tokens.append(piece_count)
            packing.origins.append([number])
    return packing


def _flush(packing: Packing, current: list[str], used: int, origin: list[int]) -> None:
    if current:
        packing.texts.append(SEPARATOR.join(current))
        packing.tokens.append(used)
        packing.origins.append(sorted(set(origin)))


def split_by_tokens(
    text: str, limit: int, *, first_limit: int | None = None
) -> list[tuple[str, int]]:
    """Cut ``text`` into pieces of at most ``limit`` tokens (the first at most ``first_limit``),
    preferring word boundaries. Returns ``(piece, tokens)`` pairs, counted exactly."""
    tokenizer = get_tokenizer()
    ids = tokenizer.encode_ordinary(text)
    pieces: list[tuple[str, int]] = []
    start, cap = 0, first_limit or limit
    while start < len(ids):
        end = len(ids) if len(ids) - start <= cap else word_boundary(ids, start, start + cap)
        piece = tokenizer.decode(ids[start:end]).strip()
        if piece:
            pieces.extend(_within(piece, cap))
        start, cap = end, limit
    return pieces


def _within(piece: str, cap: int) -> list[tuple[str, int]]:
    # Decoding a token slice and re-encoding it can, rarely, tokenize differently: re-check.
    count = count_tokens(piece)
    if count <= cap:
        return [(piece, count)]
    return split_by_tokens(piece, max(1, cap - (count - cap)))
