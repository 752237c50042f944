"""The packaged model as a judge of one claim against one passage: the chance it says "Yes".

"Does this passage state that ...?" is a narrower task than answering, and the model's
first-token chances say how sure it is, so no reply is generated: one prompt read, ~80-300
tokens. Only an LLM offering ``first_token_logprobs`` (the packaged model) can judge; the verdict
asks it only where its other features leave a claim unverified.
"""

from __future__ import annotations

import math
from typing import Any

from ..prompts.judge import CLAIM_CHECK, CLAIM_CHECK_SYSTEM
from ..types import Message


def can_judge(llm: Any) -> bool:
    return callable(getattr(llm, "first_token_logprobs", None))


def yes_share(llm: Any, passage: str, claim: str) -> float:
    """P(Yes) / (P(Yes) + P(No)) of ``llm``'s first token when asked whether ``passage`` states
    ``claim``; 0.5 when it offers neither."""
    messages = [Message("system", CLAIM_CHECK_SYSTEM),
                Message("user", CLAIM_CHECK.format(passage=passage.strip(), claim=claim.strip()))]
    chances = llm.first_token_logprobs(messages, top=10)
    yes = _mass(chances, "yes")
    no = _mass(chances, "no")
    return yes / (yes + no) if yes + no > 0 else 0.5


def _mass(logprobs: dict[str, float], word: str) -> float:
    return sum(math.exp(lp) for token, lp in logprobs.items()
               if token.strip().casefold().startswith(word) and token.strip())
