"""The packaged model as a judge of one claim: the chance it says "Yes, the passages state it".

"Does this passage state that ...?" is a narrower task than answering, and the model's
first-token chances say how sure it is, so no reply is generated: one prompt read. Two ways:

    in prompt  the answer was written by this model a moment ago (``LocalLLM.prompt_of``): the
               question replaces the cue line of that answer's own prompt, so the slot that
               read it reads only the question (~40 tokens), with all the passages and the
               question the answer was for before it (not the answer itself: shown its own
               answer, the model agrees with it)
    window     otherwise: the claim and its passage window asked afresh (~80-300 tokens)

Each way has its own weights in the verdict (``Weights.in_prompt``, ``Weights.judged``): the two
prompts give "Yes" different chances. Only an LLM offering ``first_token_logprobs`` (the
packaged model) can judge; the verdict asks it only where its other features leave a claim
unverified.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import LLMError
from ..prompts.answer import asked_instead
from ..prompts.judge import CLAIM_CHECK, CLAIM_CHECK_SYSTEM, CLAIM_IN_PROMPT
from ..types import Message
from .claims import Span, sentence_spans

IN_PROMPT, WINDOW = "in prompt", "window"


@dataclass(frozen=True, slots=True)
class Judged:
    """The judge's share of "Yes", and which way it was asked (``IN_PROMPT`` or ``WINDOW``)."""

    share: float
    way: str


def can_judge(llm: Any) -> bool:
    return callable(getattr(llm, "first_token_logprobs", None))


def judge_claim(llm: Any, passage: str, claim: str, *, answer: str = "") -> Judged:
    """``llm``'s share of "Yes" that the passages state ``claim``: in the prompt that wrote
    ``answer`` when the model still has it, else against ``passage``."""
    prompt_of = getattr(llm, "prompt_of", None)
    prompt = prompt_of(answer) if answer.strip() and callable(prompt_of) else None
    if prompt:
        try:
            return Judged(_yes(llm, asked_instead(prompt, CLAIM_IN_PROMPT.format(
                claim=claim.strip()))), IN_PROMPT)
        except LLMError:  # the model would not read it (a window it overflows): ask afresh
            pass
    return Judged(yes_share(llm, passage, claim), WINDOW)


def yes_share(llm: Any, passage: str, claim: str) -> float:
    """P(Yes) / (P(Yes) + P(No)) of ``llm``'s first token when asked whether ``passage`` states
    ``claim``; 0.5 when it offers neither."""
    return _yes(llm, [Message("system", CLAIM_CHECK_SYSTEM),
                      Message("user", CLAIM_CHECK.format(passage=passage.strip(),
                                                         claim=claim.strip()))])


def _yes(llm: Any, messages: list[Message]) -> float:
    chances = llm.first_token_logprobs(messages, top=10)
    yes = _mass(chances, "yes")
    no = _mass(chances, "no")
    return yes / (yes + no) if yes + no > 0 else 0.5


def _mass(logprobs: dict[str, float], word: str) -> float:
    return sum(math.exp(lp) for token, lp in logprobs.items()
               if token.strip().casefold().startswith(word) and token.strip())


JUDGED_SENTENCES = 2  # the judge reads the claim's sentence with this many on each side


def judged_text(text: str, span: Span) -> str:
    """What the judge reads of a passage ``text``: the sentence at ``span`` (the verdict's
    window centre) and ``JUDGED_SENTENCES`` on each side."""
    spans = sentence_spans(text, wrapped=True)
    at = next((i for i, found in enumerate(spans) if found == span), 0)
    first = spans[max(0, at - JUDGED_SENTENCES)][0]
    last = spans[min(len(spans) - 1, at + JUDGED_SENTENCES)][1]
    return text[first:last]
