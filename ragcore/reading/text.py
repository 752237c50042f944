"""How the reader sees a sentence: the sentence first, then where it stands.

The reader (``model``) was trained on exactly this form (``training/reader/pairs.py``), so the
app and the training pairs must write it the same way: the sentence whose claim is scored
leads (a long context is cut from the end), then its heading and the sentence before it, which
often name what the sentence's "it" or "the client" is ("The client waits a further interval
called the grace period, 45s by default." stands after "... a Chubby client ...").
"""

from __future__ import annotations

SEPARATOR = " | "
MAX_CONTEXT_CHARS = 300  # the sentence before, cut: the window is 128 tokens in all


def reader_text(sentence: str, heading: str = "", before: str = "") -> str:
    """``sentence`` as the reader reads it: then its ``heading`` and the sentence ``before``."""
    parts = [" ".join(sentence.split())]
    heading, before = " ".join(heading.split()), " ".join(before.split())
    if heading or before:
        parts.append(heading)
        parts.append(before[-MAX_CONTEXT_CHARS:])
    return SEPARATOR.join(parts).rstrip(" |")
