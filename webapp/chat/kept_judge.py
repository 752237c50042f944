"""The model's judgments of a reply's claims, kept with the reply so it reads the same reopened.

The check of a reply just written asks the packaged model whether a passage states its first
claim (``grounding.judge``) where the check's other features leave it undecided; the app caches
the checked reply, but only in its process. Reopened after a restart, or in another server's
process, a reply was checked again without the model and read differently: "states this" when
made, "Not confirmed by the passages" the next day. ``KeptJudge`` stands in for the judge: it asks
the model and keeps each answer (its first tokens' chances), saved in the reply's trace; opened
again, it gives the kept answers and asks nothing.

The judge may ask in the prompt that wrote the reply (``prompt_of``), which only the model held:
a kept judge stands in for that prompt, and an answer asked in it is kept under the words asked
after it, the same with the prompt or its stand-in.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from ragcore.errors import LLMError
from ragcore.types import Message

KEY = "judged"  # in a reply's trace: {"model": ..., "asked": {digest: {token: logprob}}}
_STAND_IN = "\ue000the prompt that wrote the reply\nAnswer:"
_IN_PROMPT = "in prompt "


class KeptJudge:
    """A judge that keeps what ``llm`` answered (``kept``), or, without ``llm``, gives back
    what was kept and asks nothing."""

    def __init__(self, llm: Any = None, kept: dict | None = None):
        kept = kept or {}
        self.llm = llm
        self.model = getattr(llm, "model", None) or kept.get("model", "the model")
        self.asked: dict[str, dict[str, float]] = dict(kept.get("asked") or {})
        self._prompts: list[list[Message]] = []

    def prompt_of(self, answer: str) -> list[Message] | None:
        """The prompt that wrote ``answer`` while the model holds it; reopened, a stand-in
        when an answer was asked in it."""
        if self.llm is not None:
            prompt_of = getattr(self.llm, "prompt_of", None)
            prompt = prompt_of(answer) if callable(prompt_of) else None
        else:
            prompt = [Message("user", _STAND_IN)] if any(
                key.startswith(_IN_PROMPT) for key in self.asked) else None
        if prompt:
            self._prompts.append(list(prompt))
        return prompt

    def first_token_logprobs(self, messages: list[Message], top: int = 10) -> dict[str, float]:
        key = self._key(messages, top)
        if key not in self.asked:
            if self.llm is None:  # not asked so when the reply was made
                if key.startswith(_IN_PROMPT):  # the judge asks afresh, as it did then
                    raise LLMError("no answer was kept for this question in the reply's prompt")
                return {}
            self.asked[key] = dict(self.llm.first_token_logprobs(messages, top=top))
        return self.asked[key]

    def kept(self) -> dict:
        """What to save in the reply's trace: the model, and what it was asked (maybe nothing:
        the reply was still checked by one that could be, as its Advanced line says)."""
        return {"model": self.model, "asked": self.asked}

    def _key(self, messages: list[Message], top: int) -> str:
        """A digest of what was asked: in the reply's prompt, of the words after its body."""
        asked = [(m.role, m.content) for m in messages]
        way = ""
        for *head, last in self._prompts:
            body = _body(last.content, messages[-1].content)
            if messages[:-1] == head and body:
                asked, way = [messages[-1].content[len(body):]], _IN_PROMPT
                break
        digest = hashlib.sha256(json.dumps([asked, top], ensure_ascii=False).encode())
        return way + digest.hexdigest()[:32]


def _body(prompt: str, asked: str) -> str:
    """The lines of ``prompt`` that ``asked`` begins with, as the judge asks in a prompt
    (``prompts.answer.asked_instead``: its last line, a cue such as "Answer:", replaced)."""
    shared = os.path.commonprefix([prompt, asked])
    if shared == prompt:
        return prompt + "\n" if asked.startswith(prompt + "\n") else ""
    return shared[:shared.rfind("\n") + 1]


def recording(llm: Any) -> Any:
    """The judge for a reply being checked: ``llm`` keeping its answers, when it can judge
    (offers ``first_token_logprobs``, as ``grounding.judge`` asks)."""
    judges = callable(getattr(llm, "first_token_logprobs", None))
    return KeptJudge(llm) if judges else llm


def kept_judge(message: Any) -> KeptJudge | None:
    """The judge for a saved reply: the answers kept with it (None: none were kept)."""
    kept = (message.trace or {}).get(KEY)
    return KeptJudge(kept=kept) if kept else None


def keep(message: Any, judge: Any) -> bool:
    """Save ``judge``'s answers in ``message``'s trace; whether it was a judge that keeps them
    (the model could judge)."""
    if not isinstance(judge, KeptJudge):
        return False
    message.trace = {**(message.trace or {}), KEY: judge.kept()}
    return True
