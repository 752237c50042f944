"""The not-found gate: before an answer streams, decide whether the passages hold it at all.

A small local model told to reply "Not found in the documents." when the passages lack the
answer almost never does: it answers from the nearest sentence instead. The gate asks the model
two cheap questions about the prompt it is about to answer and refuses for it when the combined
signal says so:

    signal          how                                                   cost
    p_not_found     the answer prompt's first-token probabilities: the   the prompt (read once;
                    chance the reply opens with "Not" (found ...)        the answer reuses it)
    p_no            a check pass: the same prompt asking "Do the          ~20 new tokens: it
                    passages contain the answer? Yes or No", P(No)        shares the prompt's
                                                                          prefix (KV cache)

The score is a logistic combination of the two log-odds, its weights and threshold set on
SQuAD training articles no model learns from (``benchmarks/answers/squad_local.py
--calibrate``; never on the held-out questions). The gate alone decides: when it lets through
a prompt whose likeliest first token is "Not", the model is told after the question that the
passages contain the answer (``ANSWER_NUDGE``), since its own refusals are wrong too often.

Only an LLM offering ``first_token_logprobs(messages, top=)`` (``LocalLLM``) whose model the
gate was calibrated for (``CALIBRATED_MODELS``: the default packaged model) is gated; every
other backend answers as before. Accumulate modes are not gated: each passage group there gets
its own answer, which may say "not found" on its own. The decision and its signals go to the
response's metadata and the trace notes (``not_found_gate``), never into the answer text.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterator, Protocol, Sequence

from ..errors import ConfigError
from ..prompts import NOT_FOUND_SENTENCE
from ..trace import Trace
from ..types import Message
from .steps import Batch, Call, Plan, run_plan

CHECK_QUESTION = "Do the passages contain the answer to this question? Reply Yes or No."
# Said after the question when the gate lets a prompt through that the model would refuse: the
# gate, not the model's first token, decides (the prompt's prefix is shared, so it costs little).
ANSWER_NUDGE = "The passages contain the answer."
# Fitted on 20 + 20 questions of a SQuAD 2.0 training article (benchmarks/answers/squad_local.py
# --calibrate, 2026-11-25): logistic regression, then the lowest threshold whose false "not
# found" there is <= 4 % (it was 0 of 20; 35 % of the unanswerable ones were refused).
CALIBRATED_WEIGHTS = (2.218, 0.917, 1.012)  # bias, weight of logit(p_not_found), of logit(p_no)
CALIBRATED_THRESHOLD = 0.78
# The models those numbers were fitted for: another model's first-token chances mean otherwise.
CALIBRATED_MODELS = ("local:qwen2.5-coder-1.5b",)
_FLOOR = 1e-4  # probabilities are clipped to [_FLOOR, 1 - _FLOOR] before their log-odds


class LogprobLLM(Protocol):
    """What the gate needs: the likeliest first tokens of a reply and their log-probabilities."""

    def first_token_logprobs(self, messages: Sequence[Message], *, top: int = 10
                             ) -> dict[str, float]: ...


@dataclass(frozen=True, slots=True)
class GateSignals:
    """What the model said about one prompt before answering it."""

    p_not_found: float  # chance the answer opens with "Not"
    model_refuses: bool  # "Not" is its likeliest first token: the greedy reply refuses itself
    p_no: float  # check pass: P(No) / (P(Yes) + P(No))


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Whether the gate refuses, the combined score against its threshold, and why."""

    refuse: bool
    score: float
    threshold: float
    signals: GateSignals
    seconds: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class NotFoundGate:
    """Refuses when the logistic score of the model's signals reaches ``threshold``.

    ``threshold=1.0`` never refuses: the signals are still recorded (what benchmarks use to
    sweep thresholds offline). ``models`` names the LLMs (their ``model``) it was calibrated
    for and is used with; None: any LLM that offers ``first_token_logprobs``.
    """

    weights: tuple[float, float, float] = CALIBRATED_WEIGHTS
    threshold: float = CALIBRATED_THRESHOLD
    models: tuple[str, ...] | None = CALIBRATED_MODELS

    def __post_init__(self) -> None:
        if len(self.weights) != 3 or not all(map(math.isfinite, self.weights)):
            raise ConfigError(f"weights ({self.weights!r}) must be three finite numbers: the "
                              "bias and the weights of logit(p_not_found) and logit(p_no)")
        if not 0.0 < self.threshold <= 1.0:
            raise ConfigError(f"threshold ({self.threshold!r}) must be in (0, 1]; 1 never "
                              "refuses")

    def applies_to(self, llm: Any) -> bool:
        """Whether ``llm`` can be gated: it tells first-token chances and is a model this
        gate was calibrated for."""
        if not callable(getattr(llm, "first_token_logprobs", None)):
            return False
        return self.models is None or getattr(llm, "model", None) in self.models

    def score(self, signals: GateSignals) -> float:
        """The chance (0..1) that the passages do not hold the answer."""
        bias, w_not, w_no = self.weights
        z = bias + w_not * _logit(signals.p_not_found) + w_no * _logit(signals.p_no)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def decide(self, llm: LogprobLLM, messages: Sequence[Message]) -> GateDecision:
        """Ask ``llm`` for the signals on the answer prompt ``messages`` and decide."""
        started = time.perf_counter()
        first = llm.first_token_logprobs(messages, top=10)
        check = llm.first_token_logprobs(check_messages(messages), top=10)
        signals = GateSignals(
            p_not_found=_mass(first, ("not",)),
            model_refuses=bool(first) and _top(first).strip().casefold().startswith("not"),
            p_no=_share_no(check),
        )
        score = self.score(signals)
        refuse = score >= self.threshold and self.threshold < 1.0
        return GateDecision(refuse, score, self.threshold, signals,
                            time.perf_counter() - started)


def check_messages(messages: Sequence[Message]) -> list[Message]:
    """The answer prompt with its cue line ("Answer:") replaced by ``CHECK_QUESTION``: every
    token before the cue is shared, so a model that caches prompts reads only the question."""
    *head, last = messages
    body = last.content
    cut = body.rfind("\n")
    if cut >= 0 and body[cut + 1:].rstrip().endswith(":"):
        body = body[:cut]
    return [*head, Message(last.role, f"{body}\n{CHECK_QUESTION}")]


def nudged(messages: Sequence[Message]) -> list[Message]:
    """The answer prompt with ``ANSWER_NUDGE`` on the line before its cue ("Answer:")."""
    *head, last = messages
    body = last.content
    cut = body.rfind("\n")
    if cut < 0 or not body[cut + 1:].rstrip().endswith(":"):
        return [*head, Message(last.role, f"{body}\n{ANSWER_NUDGE}")]
    return [*head, Message(last.role, f"{body[:cut]}\n{ANSWER_NUDGE}{body[cut:]}")]


def refusal(question: str, passages: Sequence[str]) -> str:
    """The gate's reply: the fixed first sentence, then what the closest passage says."""
    closest = closest_sentence(question, passages)
    if not closest:
        return NOT_FOUND_SENTENCE
    return f"{NOT_FOUND_SENTENCE}\n\nThe closest passage says: \u201c{closest}\u201d"


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n")
_WORD = re.compile(r"[^\W_]{3,}")
MAX_QUOTE_WORDS = 40


def closest_sentence(question: str, passages: Sequence[str]) -> str:
    """The passages' sentence sharing the most words (3+ letters) with ``question``, the
    earliest on ties, cut to ``MAX_QUOTE_WORDS``; "" when there is none."""
    asked = {w.casefold() for w in _WORD.findall(question)}
    best, best_shared = "", 0
    for sentence in (s for p in passages for s in _SENTENCE.split(p) if s.strip()):
        shared = len(asked & {w.casefold() for w in _WORD.findall(sentence)})
        if shared > best_shared:
            best, best_shared = " ".join(sentence.split()), shared
    words = best.split()
    return best if len(words) <= MAX_QUOTE_WORDS else " ".join(words[:MAX_QUOTE_WORDS]) + " \u2026"


def gated(decision: GateDecision, answer: Iterator[str], question: str,
          passages: Sequence[str]) -> Iterator[str]:
    """The reply: ``refusal`` when the gate refuses, else the model's answer as it streams."""
    if decision.refuse:
        yield refusal(question, passages)
        return
    yield from answer


def _mass(logprobs: dict[str, float], starts: tuple[str, ...]) -> float:
    return sum(math.exp(lp) for token, lp in logprobs.items()
               if token.strip().casefold().startswith(starts) and token.strip())


def _share_no(logprobs: dict[str, float]) -> float:
    no = _mass(logprobs, ("no",))  # "No", " no", "Not" (found)
    yes = _mass(logprobs, ("yes",))
    return no / (yes + no) if yes + no > 0 else 0.5


def _top(logprobs: dict[str, float]) -> str:
    return max(logprobs, key=logprobs.__getitem__)


def _logit(p: float) -> float:
    p = min(max(p, _FLOOR), 1.0 - _FLOOR)
    return math.log(p / (1.0 - p))


def run_gated(plan: Plan, llm: Any, trace: Trace, *, gate: NotFoundGate, question: str,
              passages: Sequence[str], metadata: dict, max_concurrency: int) -> Iterator[str]:
    """Drive ``plan`` as ``run_plan`` does, after the gate has judged its first prompt; the
    decision goes to ``metadata`` and ``trace.notes`` before the first chunk."""
    first = next(plan, None)
    if first is None:
        return
    with trace.stage("not-found gate") as detail:
        decision = gate.decide(llm, first.calls[0].messages)
        detail.update(refuse=decision.refuse, score=round(decision.score, 4))
    metadata["not_found_gate"] = trace.notes["not_found_gate"] = decision.as_dict()
    if decision.refuse:
        plan.close()
    elif decision.signals.model_refuses:  # the gate found an answer the model would refuse
        call, *rest = first.calls
        first = replace(first, calls=(Call(call.purpose, nudged(call.messages)), *rest))
    answer = run_plan(_replayed(first, plan), llm, trace, max_concurrency=max_concurrency)
    yield from gated(decision, answer, question, passages)


def _replayed(first: Batch, plan: Plan) -> Plan:
    """``plan`` with its first batch, already taken, offered again."""
    batch = first
    while True:
        replies = yield batch
        try:
            batch = plan.send(replies)
        except StopIteration:
            return
