"""The note a reply stopped by its writing cap ends with (``llms.local.pace.writing_cap``), and
how a reader of the reply tells it apart: it is ragcore's, not a claim of the answer's to check
(``present.sources``, ``present.markers``). A module of its own, so that what reads replies does
not import the packaged model's engine."""

from __future__ import annotations

import re

# "(Stopped early: ...)" at a reply's end.
CUT_SHORT = re.compile(r"\s*\(Stopped early: [^()]*\)\s*$")


def cut_short_note(tokens: int, seconds: float) -> str:
    """What a reply stopped after ``tokens`` tokens, about ``seconds`` of writing, ends with, so
    that nobody takes it as whole."""
    return (f"\n\n(Stopped early: this is what the model writes on this machine in about "
            f"{seconds:.0f} s, {tokens} tokens. Ask for less, or a part at a time.)")


def split_cut_short(text: str) -> tuple[str, str]:
    """``text`` without the note a reply stopped early ends with, and the note ("" when it has
    none)."""
    found = CUT_SHORT.search(text)
    return (text, "") if found is None else (text[:found.start()], text[found.start():])
