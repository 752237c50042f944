"""A reply begun with its short answer, written again when that short answer answers nothing.

A one-fact question's reply is begun with "**" for the packaged model (``context``), so it
writes its bold short answer first and can stop there. Begun so, a small model sometimes gives
back the question's own subject: "**King of Bohemia**" for "What is the name of the King of
Bohemia?", where the same prompt not begun says "The King of Bohemia is Wilhelm Gottsreich
Sigismond von Ormstein ...". The check would refuse such a short answer (``grounding.answer_type
.mismatch``: only the question's words, or no name where a name is asked for, no count for "how
many"), so ``redrafted`` reads the reply up to its short answer's closing "**" first (a few
tokens), and when it is of no use closes the model's reply there and has it written again
without the opening: the same prompt, all of it in the model's cache, so the second draft costs
only its writing. The trace's ``redrafted`` note says why.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Iterator, MutableMapping

from ..grounding.answer_type import mismatch

# How much of a begun reply is read for its short answer before it is let through as it is.
SHORT_ANSWER_CHARS = 160
_SHORT = re.compile(r"\s*\*\*(.+?)\*\*", re.DOTALL)


def redrafted(
    chunks: Iterable[str],
    question: str,
    again: Callable[[], Iterable[str]],
    notes: MutableMapping[str, Any],
) -> Iterator[str]:
    """``chunks`` (a reply begun with "**") as they come once its short answer answers
    ``question``; otherwise what ``again`` writes (the reply not begun), noted in
    ``notes["redrafted"]``. Closed early, it closes ``chunks``: the model stops there."""
    stream = iter(chunks)
    head, short = "", None
    try:
        for chunk in stream:
            head += chunk
            short = short_answer(head)
            if short is not None or len(head) > SHORT_ANSWER_CHARS:
                break
        off = mismatch(question, short) if short else ""
        if not off:
            if head:
                yield head
            yield from stream
            return
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    notes["redrafted"] = (f"the short answer “{short}” is not {off}; the reply was written "
                          "again without its bold opening")
    yield from again()


def short_answer(text: str) -> str | None:
    """The bold short answer ``text`` opens with, once its closing "**" is written; "" for a
    text that does not open with one; None while it may still come."""
    found = _SHORT.match(text)
    if found is not None:
        return found.group(1).strip()
    stripped = text.lstrip()
    return None if "**".startswith(stripped[:2]) else ""
