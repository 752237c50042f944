"""The query engine: retrieve -> postprocess -> synthesize, recorded in a trace; and a helper
that runs one question through several response modes on the same nodes, side by side.

The trace of a query lists, in order: the retriever's stages ("embed query", "retrieve"; or
"keyword search"; or all of these and "fuse" for hybrid retrieval), one
"postprocess: <name>" stage per postprocessor, "pack context", then one "llm: <purpose>" stage
per model call (with the call itself in ``trace.llm_calls``).
"""

from __future__ import annotations

import asyncio
import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, ParamSpec, Sequence

from .errors import ConfigError, RagcoreError
from .llms.base import LLM
from .postprocess import NodePostprocessor
from .retrieval.retrievers import Retriever, query_text
from .synthesis import Response, ResponseMode, Synthesizer
from .synthesis.response import AnswerCheck
from .trace import Trace
from .types import ScoredNode

P = ParamSpec("P")


class QueryEngine:
    """Answers questions over a retriever: postprocessors in order, then the synthesizer."""

    def __init__(
        self,
        retriever: Retriever,
        synthesizer: Synthesizer,
        *,
        postprocessors: Sequence[NodePostprocessor] = (),
        check: AnswerCheck | None = None,
    ) -> None:
        if not hasattr(retriever, "retrieve"):
            raise ConfigError(f"{retriever!r} has no retrieve(query, trace=): pass a retriever")
        if not hasattr(synthesizer, "synthesize"):
            raise ConfigError(f"{synthesizer!r} has no synthesize(): pass a Synthesizer")
        self.retriever = retriever
        self.synthesizer = synthesizer
        self.postprocessors = _checked_postprocessors(postprocessors)
        if check is not None and not callable(check):
            raise ConfigError(f"check ({check!r}) must be callable: pass an AnswerCheck")
        self.check = check  # what a person is shown of each answer (Response.shown, .verdict)

    def retrieve(self, question: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """The nodes the synthesizer would see: retrieved, then postprocessed in order (the
        question as text, or as a ``QueryBundle``)."""
        question = _check_question(question)
        nodes = self.retriever.retrieve(question, trace=trace)
        if trace is not None:
            trace.tell_found(nodes)
        return apply_postprocessors(self.postprocessors, nodes, question, trace)

    def query(self, question: str, *, trace: Trace | None = None) -> Response:
        """Answer ``question``; iterate the response to stream it, or read ``.text``."""
        trace = Trace() if trace is None else trace
        question = _check_question(question)
        trace.notes.setdefault("question", question)
        nodes = self.retrieve(question, trace=trace)
        response = self.synthesizer.synthesize(question, nodes, trace=trace)
        response.check, response.question = self.check, question
        return response

    async def aquery(self, question: str, *, trace: Trace | None = None) -> Response:
        """``query`` for asyncio: the same plan run in a worker thread, read to the end (iterate
        ``async_response_gen()`` of a ``query`` response instead to stream)."""
        response = await asyncio.to_thread(self.query, question, trace=trace)
        await asyncio.to_thread(getattr, response, "text")
        return response


def apply_postprocessors(
    postprocessors: Sequence[NodePostprocessor],
    nodes: list[ScoredNode],
    question: str,
    trace: Trace | None,
) -> list[ScoredNode]:
    """Run each postprocessor in order, each timed as a "postprocess: <name>" stage (which
    counts the passages whose text was replaced, e.g. by their sentence window). A
    postprocessor with ``postprocess_traced(nodes, query, trace)`` (``LLMRerank``) gets the
    trace, to record its own LLM calls."""
    for processor in postprocessors:
        if trace is None:
            nodes = list(processor.postprocess(nodes, question))
            continue
        with trace.stage(f"postprocess: {type(processor).__name__}", nodes_in=len(nodes)) as d:
            before = {n.node.node_id: n.node.text for n in nodes}
            traced = getattr(processor, "postprocess_traced", None)
            nodes = list(traced(nodes, question, trace) if traced is not None
                         else processor.postprocess(nodes, question))
            d["nodes_out"] = len(nodes)
            replaced = sum(before.get(n.node.node_id, n.node.text) != n.node.text for n in nodes)
            if replaced:
                d["texts replaced"] = replaced
    return nodes


def _checked_postprocessors(processors: Sequence[NodePostprocessor]) -> tuple:
    processors = tuple(processors)
    for processor in processors:
        if not hasattr(processor, "postprocess"):
            raise ConfigError(
                f"{processor!r} is not a node postprocessor: it needs "
                "postprocess(nodes, query) (see ragcore.postprocess)"
            )
    return processors


def _check_question(question: Any) -> str:
    text = getattr(question, "query_str", question)
    if not isinstance(text, str) or not text.strip():
        raise ConfigError(f"the question ({question!r}) is empty: ask something")
    return text


@dataclass(slots=True)
class ModeResult:
    """One response mode's answer to the compared question, with its cost."""

    mode: ResponseMode
    answer: str
    llm_calls: int
    tokens_in: int
    tokens_out: int
    seconds: float
    trace: Trace
    source_nodes: list[ScoredNode] = field(default_factory=list)
    error: str | None = None  # set when this mode failed (the others still ran)


def iter_compare_modes(
    question: str,
    *,
    llm: LLM,
    modes: Iterable[ResponseMode | str] = tuple(ResponseMode),
    nodes: Sequence[ScoredNode] | None = None,
    retriever: Retriever | None = None,
    postprocessors: Sequence[NodePostprocessor] = (),
    max_concurrency: int = 4,
    trace: Trace | None = None,
) -> Iterator[ModeResult]:
    """``compare_modes``, yielding each mode's result as soon as it is ready."""
    modes = [ResponseMode.parse(m) for m in modes]
    synthesizers = [
        Synthesizer(llm, response_mode=m, max_concurrency=max_concurrency) for m in modes
    ]
    nodes = _compared_nodes(question, nodes, retriever, postprocessors, trace)
    for synthesizer in synthesizers:
        yield _run_mode(synthesizer, question, nodes)


def _collected(
    iterate: Callable[P, Iterator[ModeResult]], name: str, doc: str
) -> Callable[P, list[ModeResult]]:
    """A function with ``iterate``'s parameters that runs it to the end and returns the list."""

    def collect(*args: P.args, **kwargs: P.kwargs) -> list[ModeResult]:
        return list(iterate(*args, **kwargs))

    collect.__name__ = collect.__qualname__ = name
    collect.__doc__ = doc
    collect.__signature__ = inspect.signature(iterate).replace(  # type: ignore[attr-defined]
        return_annotation="list[ModeResult]"
    )
    return collect


# The parameters are written once, on iter_compare_modes; this is the same call, collected.
compare_modes = _collected(
    iter_compare_modes,
    "compare_modes",
    """Answer one question in several modes over the SAME nodes (given, or retrieved once).

    ``trace`` (optional) records the shared retrieval; each mode gets its own trace. The
    parameters are those of ``iter_compare_modes``; the results come back as one list.
    """,
)


def _compared_nodes(
    question: str,
    nodes: Sequence[ScoredNode] | None,
    retriever: Retriever | None,
    postprocessors: Sequence[NodePostprocessor],
    trace: Trace | None,
) -> list[ScoredNode]:
    if (nodes is None) == (retriever is None):
        raise ConfigError("compare_modes needs exactly one of nodes= or retriever=")
    _check_question(question)
    if nodes is None:
        nodes = retriever.retrieve(question, trace=trace)
    return apply_postprocessors(
        _checked_postprocessors(postprocessors), list(nodes), question, trace
    )


def _run_mode(synthesizer: Synthesizer, question: str, nodes: list[ScoredNode]) -> ModeResult:
    trace = Trace()
    start = time.perf_counter()
    answer, error = "", None
    try:
        answer = synthesizer.synthesize(question, nodes, trace=trace).text
    except RagcoreError as exc:
        # One failing mode (an LLM error, a window too small) must not hide the others.
        error = f"{type(exc).__name__}: {exc}"
    return ModeResult(
        mode=synthesizer.response_mode,
        answer=answer,
        llm_calls=len(trace.llm_calls),
        tokens_in=trace.total_tokens_in,
        tokens_out=trace.total_tokens_out,
        seconds=time.perf_counter() - start,
        trace=trace,
        source_nodes=list(nodes),
        error=error,
    )
