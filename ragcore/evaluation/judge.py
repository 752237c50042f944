"""A language model as judge: asking it, and readers of its reply that forgive the format.

A judge is asked for a verdict (YES or NO) or a score (1 to 5) on the first line and a reason
after it. Models do not always comply ("**Verdict:** Yes.", "I'd give it 4/5 because ..."), so
the readers look for the first yes/no word, or the first number in range after "score" (else
the first number in range), anywhere in the reply. A reply with neither, or a model error, is a
``Verdict`` with ``error`` set: the evaluator reports "could not read the judge's reply" and the
evaluation goes on. The judge's prompts are worded in ``ragcore.prompts.judge``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RagcoreError
from ..llms import stream_complete
from ..types import Message

# What is read of a judge's reply: the verdict line and the sentence after it, at most this many
# characters; the stream is then closed (a local model stops decoding: a 1.5B model on 2 cores
# wrote 380 tokens of reasons, 7 minutes, where one line and a sentence were asked for).
JUDGE_REPLY_CHARS = 400
QUOTED_REPLY = 160  # characters of an unreadable reply quoted in the result
# The first verdict word wins; "not" before a positive word makes it negative ("Not supported").
_YES_NO = re.compile(r"\b(?P<negated>not\s+)?(?P<word>yes|no|pass|fail|true|false|supported|"
                     r"unsupported|relevant|irrelevant|correct|incorrect)\b", re.I)
_SCORE = re.compile(r"score\W{0,4}(\d+(?:\.\d+)?)", re.I)
_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?![\d.])")
_POSITIVE = {"yes", "pass", "true", "supported", "relevant", "correct"}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a judge said: a pass/fail or a score, the reason, or why it could not be read."""

    passing: bool | None = None
    score: float | None = None
    reason: str = ""
    error: str | None = None


def ask(llm: object, prompt: str) -> str | Verdict:
    """The judge's reply to ``prompt``, or a Verdict with the error when the model failed."""
    try:
        return _verdict_and_reason(stream_complete(llm, [Message("user", prompt)]))
    except RagcoreError as exc:
        return Verdict(error=f"the judge failed: {exc}")


_REASON_END = re.compile(r"\n[^\n]*\S[.!?]\s")


def _verdict_and_reason(chunks) -> str:
    """The reply up to the end of the first sentence after its first line (or
    ``JUDGE_REPLY_CHARS``); the rest is not generated."""
    text = ""
    try:
        for chunk in chunks:
            text += chunk
            if len(text) >= JUDGE_REPLY_CHARS or _REASON_END.search(text.lstrip()):
                break
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return text


def read_yes_no(reply: str) -> Verdict:
    """YES/NO (or pass/fail, true/false) anywhere in the reply, first one wins."""
    found = _YES_NO.search(reply)
    if not found:
        return _unreadable(reply, "no YES or NO in it")
    passing = (found.group("word").lower() in _POSITIVE) != bool(found.group("negated"))
    return Verdict(passing=passing, score=1.0 if passing else 0.0, reason=_reason(reply))


def read_score(reply: str, low: float = 1.0, high: float = 5.0) -> Verdict:
    """A score in [low, high]: after the word "score" if there is one, else the first number."""
    candidates = [m.group(1) for m in _SCORE.finditer(reply)] + _NUMBER.findall(reply)
    for text in candidates:
        value = float(text)
        if low <= value <= high:
            return Verdict(score=value, reason=_reason(reply))
    return _unreadable(reply, f"no score from {low:g} to {high:g} in it")


def judged(llm: object, prompt: str, read) -> Verdict:
    """Ask the judge and read its reply with ``read`` (``read_yes_no`` or ``read_score``)."""
    reply = ask(llm, prompt)
    return reply if isinstance(reply, Verdict) else read(reply)


def _reason(reply: str) -> str:
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    rest = " ".join(lines[1:]) if len(lines) > 1 else (lines[0] if lines else "")
    return rest.strip()


def _unreadable(reply: str, why: str) -> Verdict:
    quoted = " ".join(reply.split())[:QUOTED_REPLY]
    return Verdict(error=f"could not read the judge's reply ({why}): {quoted!r}")
