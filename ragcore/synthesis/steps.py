"""How a response mode's plan meets the LLM: plans are generators, ``run_plan`` drives them.

A plan (``refine_plan``, ``tree_plan``, ...) is a no-I/O generator. It yields a ``Batch`` of
LLM calls that do not depend on each other and receives their replies, in order, through
``send``. Its last batch is marked ``final``: the driver streams that one instead of collecting
it, so every mode streams its final step. The multi-step logic therefore exists once, in the
plans, and this module is the only place that talks to the model, runs independent calls
concurrently (up to ``max_concurrency``) and records each call in the trace. A batch of one
call gets an LLM that states what it knows of its reply in the trace notes (``noting``: the
extractive answerer's score); several independent replies (accumulate's answers, a tree level's
summaries) have no one score, so theirs state none. Each call carries the request its
messages were formatted from (``AnswerRequest``), handed to a backend that answers requests
(``answering``); every call sends and traces its messages.
"""

from __future__ import annotations

import contextvars
import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generator, Iterator, Sequence

from ..llms.base import LLM, answering, complete_traced, noting, stream_traced
from ..streaming import begun_with
from ..trace import Trace
from ..types import AnswerRequest, Message


@dataclass(frozen=True, slots=True)
class Call:
    """One LLM call: its trace label (e.g. "refine 2/3"), its messages and what they ask."""

    purpose: str
    messages: list[Message]
    request: AnswerRequest | None = None
    prefill: str = ""  # the reply's start, already the last (assistant) message: put back in front

    def prefilled(self, text: str) -> Call:
        """This call with the model's reply begun by ``text`` (a backend that continues a final
        assistant message: the packaged model); the driver puts ``text`` back in front."""
        if not text:
            return self
        return Call(self.purpose, [*self.messages, Message("assistant", text)], self.request,
                    self.prefill + text)


@dataclass(frozen=True, slots=True)
class Batch:
    """Independent calls; the plan receives their replies in the order of ``calls``.

    In the ``final`` batch, ``headers[i]`` is emitted before reply ``i`` (accumulate's
    "Response 2: " lines), and with ``shared_opening`` a first line that a later reply shares
    with the first reply (a backend's preamble) is left out of the later one; other batches
    ignore both.
    """

    calls: tuple[Call, ...]
    final: bool = False
    headers: tuple[str, ...] = ()
    shared_opening: bool = False


Plan = Generator[Batch, list[str], None]


def run_plan(plan: Plan, llm: LLM, trace: Trace | None, *, max_concurrency: int) -> Iterator[str]:
    """Drive ``plan`` against ``llm``: collect intermediate batches, stream the final one."""
    batch = next(plan, None)
    while batch is not None and not batch.final:
        replies = _complete_all(batch.calls, _noted(llm, batch, trace), trace, max_concurrency)
        batch = plan.send(replies)
    if batch is not None:
        yield from _stream_final(batch, _noted(llm, batch, trace), trace, max_concurrency)
    plan.close()


def _noted(llm: LLM, batch: Batch, trace: Trace | None) -> LLM:
    """``llm`` stating its reply's score in the trace notes, for a batch of one call."""
    return noting(llm, trace.notes) if trace is not None and len(batch.calls) == 1 else llm


def _complete_all(
    calls: Sequence[Call], llm: LLM, trace: Trace | None, max_concurrency: int
) -> list[str]:
    def run(call: Call) -> str:
        return call.prefill + complete_traced(answering(llm, call.request), call.messages, trace,
                                              call.purpose)

    workers = min(max_concurrency, len(calls))
    if workers <= 1:
        return [run(call) for call in calls]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragcore-llm") as pool:
        # In the caller's context: the question's turn at a shared model (``llms.slots``).
        futures = [pool.submit(contextvars.copy_context().run, run, call) for call in calls]
        return [future.result() for future in futures]


def _stream_final(
    batch: Batch, llm: LLM, trace: Trace | None, max_concurrency: int
) -> Iterator[str]:
    """Stream the first call live while the others run in a pool; emit them in order."""
    calls = batch.calls
    headers = batch.headers or ("",) * len(calls)
    opening = _Opening(batch.shared_opening)
    workers = min(max_concurrency - 1, len(calls) - 1)
    if workers < 1:
        for n, (header, call) in enumerate(zip(headers, calls)):
            chunks = begun_with(call.prefill, stream_traced(
                answering(llm, call.request), call.messages, trace, call.purpose))
            yield from _with_header(header, opening.record(chunks) if n == 0 else
                                    opening.drop(chunks))
        return
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ragcore-llm")
    try:
        rest: list[Future[str]] = [
            pool.submit(contextvars.copy_context().run, complete_traced,
                        answering(llm, c.request), c.messages, trace, c.purpose)
            for c in calls[1:]
        ]
        first = calls[0]
        chunks = begun_with(first.prefill, stream_traced(
            answering(llm, first.request), first.messages, trace, first.purpose))
        yield from _with_header(headers[0], opening.record(chunks))
        for call, header, future in zip(calls[1:], headers[1:], rest):
            yield from _with_header(header, opening.drop(iter((call.prefill + future.result(),))))
    finally:
        # A consumer that stops reading early should not wait for calls nobody will see.
        pool.shutdown(wait=True, cancel_futures=True)


def prefill_first(plan: Plan, prefill: str) -> Plan:
    """``plan`` with the reply to its first call begun by ``prefill`` (for a backend that
    continues a final assistant message); the plan unchanged for an empty ``prefill``."""
    if not prefill:
        return plan
    return _first_prefilled(plan, prefill)


def _first_prefilled(plan: Plan, prefill: str) -> Plan:
    first = next(plan, None)
    if first is None:
        return
    call, *rest = first.calls
    yield from replayed(dataclasses.replace(first, calls=(call.prefilled(prefill), *rest)), plan)


def replayed(first: Batch, plan: Plan) -> Plan:
    """``plan`` with its first batch, already taken (and perhaps changed), offered again."""
    batch = first
    while True:
        replies = yield batch
        try:
            batch = plan.send(replies)
        except StopIteration:
            return


def _with_header(header: str, chunks: Iterator[str]) -> Iterator[str]:
    if header:
        yield header
    for chunk in chunks:
        if chunk:
            yield chunk


class _Opening:
    """A label every reply opens with, shown once: the longest start that a later reply's first
    line shares with the first reply's, up to its last colon ("Extractive answer (...): "), is
    left out of the later reply when it is at least ``MIN_OPENING`` characters (when
    ``active``)."""

    def __init__(self, active: bool) -> None:
        self.active = active
        self.line: str | None = None

    def record(self, chunks: Iterator[str]) -> Iterator[str]:
        seen = ""
        for chunk in chunks:
            if self.active and self.line is None:
                seen += chunk
                if "\n" in seen:
                    self.line = seen.split("\n", 1)[0]
            yield chunk
        if self.active and self.line is None:
            self.line = seen

    def drop(self, chunks: Iterator[str]) -> Iterator[str]:
        if not self.active or not self.line:
            yield from chunks
            return
        buffered = ""
        for chunk in chunks:
            buffered += chunk
            if "\n" in buffered or len(buffered) > len(self.line):
                break
        shared = _shared_label(self.line, buffered.split("\n", 1)[0])
        rest = buffered[len(shared):]
        # What followed a dropped whole line still starts a line of its own (a list, say).
        yield rest.lstrip(" ") if rest.strip() else buffered
        yield from chunks


MIN_OPENING = 12


def _shared_label(first: str, other: str) -> str:
    """The start ``other`` shares with ``first``, up to and including its last colon (and the
    space after it), or "" when that is shorter than ``MIN_OPENING``. Digits count as shared
    (a label may state a number of its own)."""
    length = 0
    for a, b in zip(first, other):
        if a != b and not (a.isdigit() and b.isdigit()):
            break
        length += 1
    cut = other.rfind(":", 0, length)
    if cut + 1 < MIN_OPENING:
        return ""
    return other[: cut + 1] + (" " if other[cut + 1 : cut + 2] == " " else "")
