"""The not-found gate: before an answer streams, decide whether the passages hold it at all.

A small local model told to reply "Not found in the documents." when the passages lack the
answer almost never does: it answers from the nearest sentence instead. The gate gathers
cheap signals about the prompt it is about to answer and refuses for it when their combination
says so:

    signal          how                                                   cost
    p_no            the one pass: the answer prompt, its cue ("Answer:")  the prompt, read once:
                    replaced by "Do the passages contain the answer?      the answer then reads
                    Yes or No", P(No)                                     only its own cue
    p_answered      the extractive answerer's answerability model on the  ~0.1-0.2 s, run while
                    question and the passages (``answerability``), with   the model reads the
                    the index's embedding model                           prompt
    p_not_found     the answer prompt's first-token chance of "Not"       a second pass: only
                    (found ...); read by older calibrations and recorded  when a calibration
                    by benchmarks, no longer by the shipped ones          reads it

The gate's one pass reads the whole prompt, which the answer reuses (the slot's KV cache keeps
it): the gate's own cost is the check question's ~20 tokens and one token written, about a
tenth of the answer's time (``benchmarks/llm/bench_busy.py``).

The score is a logistic combination of the signals' log-odds (a ``Calibration``: its weights
and threshold set on SQuAD training questions no model here is judged on,
``benchmarks/answers/squad_local.py --calibrate``, fitted by ``gate_sweep --fit``; never on the
held-out questions). p_answered
needs the index's embedding model, which the engines hand to an LLM offering ``with_embedder``
(``LocalLLM`` keeps it for this): without one (keyword-only retrieval, or a synthesizer built by
hand) the gate uses the calibration of the model's own signals (``MODEL_ONLY``). The gate alone
decides: when it lets an answer through and the model opens it with "Not found" all the same, the
answer is asked again with the model told after the question that the passages contain the
answer (``ANSWER_NUDGE``), since its own refusals are wrong too often (the retry reads only the
nudge: the rest of the prompt is cached); every answer the gate lets through is begun with the
answer prompt's ``prefill`` ("**", the bold short answer) for the model to continue. The check question
and the nudge are worded in ``ragcore.prompts.answer``, beside the answer prompts they are added
to.

Only an LLM offering ``first_token_logprobs(messages, top=)`` (``LocalLLM``) whose model the
gate was calibrated for (``CALIBRATED_MODELS``: the default packaged model) is gated; every
other backend answers as before. Accumulate modes are not gated: each passage group there gets
its own answer, which may say "not found" on its own. The decision and its signals go to the
response's metadata and the trace notes (``not_found_gate``), never into the answer text.
"""

from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterator, Protocol, Sequence

from ..errors import ConfigError
from ..grounding.nearest import closest_sentence
from ..llms.extractive.answer import answerability
from ..prompts.answer import (
    ANSWER_NUDGE,
    CHECK_QUESTION,
    NOT_FOUND_SENTENCE,
    asked_instead,
    said_before_cue,
)
from ..trace import Trace
from ..types import Message
from .span_choice import can_choose, chosen_answer
from .steps import Plan, replayed, run_plan

SIGNALS = ("p_not_found", "p_no", "p_answered")
# The models the calibrations were fitted for: another model's first-token chances mean otherwise.
CALIBRATED_MODELS = ("local:qwen2.5-coder-1.5b",)
_FLOOR = 1e-4  # probabilities are clipped to [_FLOOR, 1 - _FLOOR] before their log-odds


class LogprobLLM(Protocol):
    """What the gate needs: the likeliest first tokens of a reply and their log-probabilities."""

    def first_token_logprobs(self, messages: Sequence[Message], *, top: int = 10
                             ) -> dict[str, float]: ...


@dataclass(frozen=True, slots=True)
class GateSignals:
    """What the model (and the answerability model) said about one prompt before answering."""

    p_not_found: float | None = None  # chance the answer opens with "Not"; None: not asked
    model_refuses: bool | None = None  # "Not" is its likeliest first token; None: not asked
    p_no: float | None = None  # check pass: P(No) / (P(Yes) + P(No)); None: not asked
    p_answered: float | None = None  # answerability of the passages; None: not measured


@dataclass(frozen=True, slots=True)
class Calibration:
    """A logistic model of "the passages do not hold the answer": ``weights`` are the bias and
    then one weight per signal's log-odds, in ``signals`` order; the gate refuses from
    ``threshold`` (1.0: never)."""

    signals: tuple[str, ...]
    weights: tuple[float, ...]
    threshold: float

    def __post_init__(self) -> None:
        unknown = set(self.signals) - set(SIGNALS)
        if unknown or not self.signals:
            raise ConfigError(f"signals ({self.signals!r}) must be some of {SIGNALS}")
        if len(self.weights) != len(self.signals) + 1 or not all(map(math.isfinite,
                                                                    self.weights)):
            raise ConfigError(f"weights ({self.weights!r}) must be {len(self.signals) + 1} finite "
                              f"numbers: the bias, then a weight for each of {self.signals}")
        if not 0.0 < self.threshold <= 1.0:
            raise ConfigError(f"threshold ({self.threshold!r}) must be in (0, 1]; 1 never "
                              "refuses")

    def features(self, signals: GateSignals) -> list[float]:
        """The log-odds this calibration weighs: each signal as a chance of "not answered"."""
        return [_logit(_chance_against(name, signals)) for name in self.signals]

    def score(self, signals: GateSignals) -> float:
        """The chance (0..1) that the passages do not hold the answer."""
        bias, *weights = self.weights
        z = bias + sum(w * f for w, f in zip(weights, self.features(signals)))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


# Fitted on 60 + 60 questions of a SQuAD 2.0 training article (benchmarks/answers/squad_local.py
# --calibrate, 2026-11-25, rows in squad_local_rows/calibration-2026-11-25-run2.jsonl): logistic
# regression, then the lowest threshold whose false "not found" there is <= 4 %. The answer
# prompt's first token weighed 0.03-0.05 beside the check pass's 1.3-1.5 and is left out (one
# pass, not two); on the held-out rows (heldout-2026-11-25-run5) the gate without it refuses as
# the gate with it did (5 % of unanswerable, 0 % of answerable; AUC 83.4 % either way).
CALIBRATED = Calibration(("p_no", "p_answered"), (1.942, 1.338, 0.13), 0.88)
MODEL_ONLY = Calibration(("p_no",), (2.058, 1.538), 0.76)


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
    """Refuses when the score of the signals reaches the calibration's threshold.

    ``calibration`` is used when the passages' answerability can be measured (an embedder is
    given), ``model_only`` otherwise. ``refuses=False`` records the signals but never refuses
    (what benchmarks use to sweep thresholds offline). ``models`` names the LLMs (their
    ``model``) it was calibrated for and is used with; None: any LLM that offers
    ``first_token_logprobs``.
    """

    calibration: Calibration = CALIBRATED
    model_only: Calibration = MODEL_ONLY
    refuses: bool = True
    models: tuple[str, ...] | None = CALIBRATED_MODELS

    def applies_to(self, llm: Any) -> bool:
        """Whether ``llm`` can be gated: it tells first-token chances and is a model this
        gate was calibrated for."""
        if not callable(getattr(llm, "first_token_logprobs", None)):
            return False
        return self.models is None or getattr(llm, "model", None) in self.models

    def chosen(self, signals: GateSignals) -> Calibration:
        """The calibration for ``signals``: the full one when answerability was measured."""
        return self.model_only if signals.p_answered is None else self.calibration

    def score(self, signals: GateSignals) -> float:
        return self.chosen(signals).score(signals)

    def refuses_for(self, signals: GateSignals) -> bool:
        calibration = self.chosen(signals)
        return self._refuses(calibration, calibration.score(signals))

    def _refuses(self, calibration: Calibration, score: float) -> bool:
        return self.refuses and calibration.threshold < 1.0 and score >= calibration.threshold

    def decide(self, llm: LogprobLLM, messages: Sequence[Message], *, question: str = "",
               passages: Sequence[str] = (), embedder: Any = None) -> GateDecision:
        """Ask ``llm`` for the signals on the answer prompt ``messages`` (and the answerability
        model, with ``embedder``, on ``question`` and ``passages``, while the model reads the
        prompt) and decide."""
        started = time.perf_counter()
        with ThreadPoolExecutor(1, thread_name_prefix="ragcore-answerability") as pool:
            measured = None if embedder is None else pool.submit(
                answerability, passages, question, embedder=embedder)
            reads = (self.model_only if measured is None else self.calibration).signals
            recording = not self.refuses  # a recording gate records every signal
            # The check first: it reads the whole prompt, which the answer then reuses.
            check = (llm.first_token_logprobs(check_messages(messages), top=10)
                     if "p_no" in reads or recording else None)
            first = (llm.first_token_logprobs(messages, top=10)
                     if "p_not_found" in reads or recording else None)
            signals = GateSignals(
                p_not_found=None if first is None else _mass(first, ("not",)),
                model_refuses=None if first is None else (
                    bool(first) and _top(first).strip().casefold().startswith("not")),
                p_no=None if check is None else _share_no(check),
                p_answered=None if measured is None else measured.result(),
            )
        calibration = self.chosen(signals)
        score = calibration.score(signals)
        return GateDecision(self._refuses(calibration, score), score, calibration.threshold,
                            signals, time.perf_counter() - started)


def check_messages(messages: Sequence[Message]) -> list[Message]:
    """The answer prompt with its cue line ("Answer:") replaced by ``CHECK_QUESTION``."""
    return asked_instead(messages, CHECK_QUESTION)


def nudged(messages: Sequence[Message]) -> list[Message]:
    """The answer prompt with ``ANSWER_NUDGE`` on the line before its cue ("Answer:")."""
    return said_before_cue(messages, ANSWER_NUDGE)


def refusal(question: str, passages: Sequence[str]) -> str:
    """The gate's reply: the fixed first sentence, then what the closest passage says."""
    closest = closest_sentence(question, passages)
    if not closest:
        return NOT_FOUND_SENTENCE
    return f"{NOT_FOUND_SENTENCE}\n\nThe closest passage says: \u201c{closest}\u201d"


def _mass(logprobs: dict[str, float], starts: tuple[str, ...]) -> float:
    return sum(math.exp(lp) for token, lp in logprobs.items()
               if token.strip().casefold().startswith(starts) and token.strip())


def _chance_against(name: str, signals: GateSignals) -> float:
    """Signal ``name`` as a chance that the passages do NOT hold the answer."""
    value = getattr(signals, name)
    if value is None:
        raise ConfigError(f"the gate's calibration needs {name}, which was not measured")
    return 1.0 - value if name == "p_answered" else value


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
              passages: Sequence[str], metadata: dict, max_concurrency: int,
              prefill: str = "", span_choice: bool = False) -> Iterator[str]:
    """Drive ``plan`` as ``run_plan`` does, after the gate has judged its first prompt; the
    decision goes to ``metadata`` and ``trace.notes`` before the first chunk. The passages'
    answerability is measured with ``llm``'s embedder (the index's), when it carries one. An
    answer the gate lets through is begun with ``prefill`` (the first prompt template's: "**",
    the bold short answer), which the model continues: it cannot refuse what the gate found.
    With ``span_choice`` a one-prompt answer is first chosen among the passages' phrases
    (``span_choice``) by an LLM that can choose; the model writes it when nothing was chosen."""
    first = next(plan, None)
    if first is None:
        return
    with trace.stage("not-found gate") as detail:
        decision = gate.decide(llm, first.calls[0].messages, question=question,
                               passages=passages, embedder=getattr(llm, "embedder", None))
        detail.update(refuse=decision.refuse, score=round(decision.score, 4))
    metadata["not_found_gate"] = trace.notes["not_found_gate"] = decision.as_dict()
    if decision.refuse:
        plan.close()
        yield refusal(question, passages)
        return
    call, *rest = first.calls
    if span_choice and first.final and not rest and can_choose(llm):
        chosen = chosen_answer(llm, call.prefilled(prefill).messages, trace, question=question,
                               passages=passages, embedder=getattr(llm, "embedder", None))
        if chosen is not None:
            plan.close()
            yield chosen
            return
    if decision.signals.model_refuses:  # the gate found an answer the model would refuse
        call = replace(call, messages=nudged(call.messages))
    answer = run_plan(replayed(replace(first, calls=(call.prefilled(prefill), *rest)), plan),
                      llm, trace, max_concurrency=max_concurrency)
    if decision.signals.model_refuses is not None or not first.final:
        yield from answer
        return
    # The model's first token was not asked: an answer that opens with "Not found" all the same
    # is asked again, nudged (the first batch is the final one, so nothing was sent to the plan).
    head, refused = _opening(answer, prefill)
    if not refused:
        yield head
        yield from answer
        return
    answer.close()
    trace.notes["not_found_gate"] = {**trace.notes["not_found_gate"], "nudged": True}
    call = replace(call, messages=nudged(call.messages))
    yield from run_plan(replayed(replace(first, calls=(call.prefilled(prefill), *rest)), plan),
                        llm, trace, max_concurrency=max_concurrency)


_REFUSAL_OPENING = "not found"


def _opening(answer: Iterator[str], prefill: str) -> tuple[str, bool]:
    """The answer's first chunks, up to the length of "not found" past ``prefill`` and the
    formatting around it, and whether they say it."""
    head = words = ""
    for chunk in answer:
        head += chunk
        words = head.removeprefix(prefill).lstrip(" *_\n").casefold()
        if len(words) >= len(_REFUSAL_OPENING):
            break
    return head, words.startswith(_REFUSAL_OPENING)
