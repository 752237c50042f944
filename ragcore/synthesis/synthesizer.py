"""The synthesizer: turns a question and retrieved nodes into a streamed ``Response``.

It validates its options, budgets the context once, lays the chunks out for the chosen mode
(packed for the compact modes, one per prompt for refine and accumulate, all in one for
simple_summarize) and hands the matching plan (``refine``, ``tree``, ``accumulate``,
``single``) to the driver in ``steps``. The plans and the driver run lazily, when the response
is first read; budgeting and packing run here, so a bad configuration fails at the call.

With no nodes, every mode but ``generation`` answers ``NO_CONTEXT_ANSWER`` without calling
the model (``generation`` never uses nodes, so it answers anyway); ``no_text`` returns the
nodes with an empty answer. A model that replies with nothing gives ``streaming.EMPTY_REPLY``
as the answer, not an empty string.

An LLM that offers ``first_token_logprobs`` (the packaged local model) answering in a mode that
gives one answer passes the not-found gate first (``not_found``): it may refuse with
"Not found in the documents." before anything streams, and an answer it lets through is begun
with the first prompt's ``prefill`` ("**": the bold short answer) for the model to continue.
``not_found_gate=None`` turns it off. With ``span_choice`` a factoid answer the gate lets
through is chosen by a model that can choose (the packaged model) among the passages' phrases
instead of written (``span_choice``); off by default. A slot of the answer form the model
copied into its reply (``prompts.answer.FORM_SLOTS``: "<support>") is taken out of every
answer as it streams.
"""

from __future__ import annotations

from functools import partial
from typing import Sequence

from ..errors import ConfigError
from ..grounding.kinds import QuestionKind, profile, question_kind
from ..llms.base import LLM
from ..prompt_budget import truncate_to_tokens
from ..prompts import FIELD_MARGIN_TOKENS, PromptTemplate
from ..prompts.answer import FORM_SLOTS, SynthesisPrompts
from ..prompts.citation_marks import normalised_citations
from ..streaming import or_empty_notice, without_phrases
from ..tokens import count_tokens
from ..trace import Trace
from ..types import MetadataMode, ScoredNode
from .accumulate import accumulate_plan
from .budget import (
    SEPARATOR,
    SEPARATOR_TOKENS,
    Packing,
    context_budget,
    count_each,
    fit_each,
    pack_chunks,
)
from .modes import ResponseMode
from .not_found import NotFoundGate, run_gated
from .passages import passage_text, with_header
from .refine import refine_plan
from .response import Response
from .single import single_plan
from .steps import Plan, prefill_first, run_plan
from .tree import tree_plan

NO_CONTEXT_ANSWER = (
    "I found nothing in the indexed documents that is relevant to this question, so I cannot "
    "answer it from them. Try rephrasing it, or add documents that cover it."
)

# The modes whose answer is one answer to the question (accumulate lists one per passage group).
GATED_MODES = frozenset({ResponseMode.COMPACT, ResponseMode.REFINE,
                         ResponseMode.SIMPLE_SUMMARIZE, ResponseMode.TREE_SUMMARIZE})


class Synthesizer:
    """Answers a question from nodes in one of the eight response modes."""

    def __init__(
        self,
        llm: LLM,
        *,
        response_mode: ResponseMode | str = ResponseMode.COMPACT,
        max_concurrency: int = 4,
        prompts: SynthesisPrompts = SynthesisPrompts(),
        not_found_gate: NotFoundGate | None = NotFoundGate(),
        span_choice: bool = False,
    ) -> None:
        _check_llm(llm)
        if not_found_gate is not None and not callable(getattr(not_found_gate, "decide", None)):
            raise ConfigError(f"not_found_gate ({not_found_gate!r}) must be a NotFoundGate, or "
                              "None to answer without one")
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ConfigError(
                f"max_concurrency ({max_concurrency!r}) must be a whole number of at least 1"
            )
        self.llm = llm
        self.response_mode = ResponseMode.parse(response_mode)
        self.max_concurrency = max_concurrency
        self.prompts = prompts
        if not isinstance(span_choice, bool):
            raise ConfigError(f"span_choice ({span_choice!r}) must be True or False")
        self.not_found_gate = not_found_gate
        self.span_choice = span_choice

    def with_system_prompt(self, system_prompt: str) -> Synthesizer:
        """The same synthesizer whose every prompt starts with ``system_prompt``."""
        return Synthesizer(
            self.llm,
            response_mode=self.response_mode,
            max_concurrency=self.max_concurrency,
            prompts=self.prompts.with_system_prompt(system_prompt),
            not_found_gate=self.not_found_gate,
            span_choice=self.span_choice,
        )

    def synthesize(
        self, query: str, nodes: Sequence[ScoredNode], *, trace: Trace | None = None
    ) -> Response:
        """The answer to ``query`` from ``nodes`` (best first); text is produced when read."""
        trace = Trace() if trace is None else trace
        nodes = list(nodes)
        mode = self.response_mode
        metadata: dict = {"response_mode": mode.value, "nodes": len(nodes)}
        kwargs = dict(source_nodes=nodes, trace=trace, mode=mode, metadata=metadata)
        if mode is ResponseMode.NO_TEXT:
            return Response.from_text("" if nodes else NO_CONTEXT_ANSWER, **kwargs)
        if not nodes and mode is not ResponseMode.GENERATION:
            return Response.from_text(NO_CONTEXT_ANSWER, **kwargs)
        kind = question_kind(query)
        metadata["question_kind"] = trace.notes["question_kind"] = kind.value
        prompts = self.prompts.for_kind(kind.value)
        with trace.stage("pack context") as detail:
            read = [passage_text(n.node) for n in nodes]  # a Markdown file's HTML as text
            headers = [n.node.metadata_str(MetadataMode.LLM) for n in nodes]
            texts = [with_header(h, t) for h, t in zip(headers, read)]
            files = [n.file_name or "" for n in nodes]
            plan = self._plan(query, texts, files, headers, metadata, prompts)
            detail.update(metadata)
        if plan is None:
            return Response.from_text(NO_CONTEXT_ANSWER, **kwargs)
        llm, limit, gate = self.llm, self.max_concurrency, self._gate()
        prefill = self._first_template(prompts).prefill
        if gate is not None and not profile(kind).gated:
            # Lists, summaries, comparisons and questions about a document are never refused by
            # the factoid gate; the packaged model still continues the kind's opening.
            plan, gate = prefill_first(plan, prefill), None
            metadata["not_found_gate"] = trace.notes["not_found_gate"] = {
                "skipped": f"a {kind.value} question is not refused by the factoid gate"}
        if gate is None:
            answer = partial(run_plan, plan, llm, trace, max_concurrency=limit)
        else:
            answer = partial(run_gated, plan, llm, trace, gate=gate, question=query,
                             passages=read, metadata=metadata,
                             max_concurrency=limit, prefill=prefill,
                             span_choice=self.span_choice and kind is QuestionKind.FACTOID)
        # A slot of the answer form that the model copied ("<support>") is never shown.
        # Citation markers in one format ("Source 1" -> "[1]"), numbers above the passages
        # dropped (``prompts.citation_marks``).
        return Response(
            lambda: or_empty_notice(
                normalised_citations(without_phrases(answer(), FORM_SLOTS), sources=len(nodes)),
                trace.notes),
            **kwargs)

    def _first_template(self, prompts: SynthesisPrompts) -> PromptTemplate:
        """The template of a gated mode's first call (the one the gate judges)."""
        mode = self.response_mode
        if mode is ResponseMode.SIMPLE_SUMMARIZE:
            return prompts.simple_summarize
        return prompts.summary if mode is ResponseMode.TREE_SUMMARIZE else prompts.qa

    def _gate(self) -> NotFoundGate | None:
        """The not-found gate, for an LLM it was calibrated for (the packaged model) answering in
        a mode that gives one answer; None otherwise."""
        gate = self.not_found_gate
        if gate is None or self.response_mode not in GATED_MODES or not gate.applies_to(self.llm):
            return None
        return gate

    def _plan(
        self, question: str, texts: list[str], files: list[str], headers: list[str],
        notes: dict, prompts: SynthesisPrompts,
    ) -> Plan | None:
        """Budget the context, lay out the chunks once, and build the mode's plan."""
        mode = self.response_mode
        question_tokens = count_tokens(question)
        if mode is ResponseMode.GENERATION:
            self._budget(prompts.generation, question_tokens)
            return single_plan("generation", prompts.generation, question=question)
        counts = count_each(texts)
        if mode is ResponseMode.SIMPLE_SUMMARIZE:
            budget = self._budget(prompts.simple_summarize, question_tokens)
            context = _join_within(texts, counts, budget, notes)
            notes["context_budget"] = budget
            if not context:
                return None
            return single_plan(
                "simple_summarize", prompts.simple_summarize, question=question, context=context
            )
        packing, budget = self._lay_out(question_tokens, texts, counts, headers, prompts)
        notes.update(
            context_budget=budget, prompts=len(packing.texts), cut_chunks=packing.cut_chunks
        )
        if not packing.texts:
            return None
        if mode in (ResponseMode.REFINE, ResponseMode.COMPACT):
            return refine_plan(
                question,
                packing.texts,
                qa=prompts.qa,
                refine=prompts.refine,
                answer_limit=self.llm.num_output,
                notes=notes,
            )
        if mode is ResponseMode.TREE_SUMMARIZE:
            return tree_plan(
                question, packing.texts, summary=prompts.summary, budget=budget, notes=notes
            )
        sources = [[files[i] for i in origin] for origin in packing.origins]
        return accumulate_plan(question, packing.texts, qa=prompts.qa, sources=sources)

    def _lay_out(
        self, question_tokens: int, texts: list[str], counts: list[int], headers: list[str],
        prompts: SynthesisPrompts,
    ) -> tuple[Packing, int]:
        mode = self.response_mode
        if mode is ResponseMode.TREE_SUMMARIZE:
            budget = self._budget(prompts.summary, question_tokens)
            return pack_chunks(texts, counts, budget, headers), budget
        budget = self._budget(prompts.qa, question_tokens)
        packed = mode in (ResponseMode.COMPACT, ResponseMode.COMPACT_ACCUMULATE)
        if mode in (ResponseMode.REFINE, ResponseMode.COMPACT):
            one_prompt = _joined_tokens(counts) <= budget and (packed or len(counts) == 1)
            if not one_prompt:
                # Refine prompts also carry the answer so far: reserve room for a full reply.
                reserve = self.llm.num_output
                budget = min(budget, self._budget(prompts.refine, question_tokens, reserve))
        if packed:
            return pack_chunks(texts, counts, budget, headers), budget
        return fit_each(texts, counts, budget), budget

    def _budget(self, template: PromptTemplate, question_tokens: int, reserve: int = 0) -> int:
        prompt_tokens = (
            template.fixed_tokens()
            + FIELD_MARGIN_TOKENS * template.slots
            + question_tokens * template.uses("question")
            + reserve
        )
        return context_budget(
            context_window=self.llm.context_window,
            num_output=self.llm.num_output,
            prompt_tokens=prompt_tokens,
            prompt_name=f"the {template.name!r} prompt"
            + (" with room for the answer so far" if reserve else ""),
        )


def _joined_tokens(counts: Sequence[int]) -> int:
    return sum(counts) + SEPARATOR_TOKENS * max(0, len(counts) - 1)


def _join_within(texts: list[str], counts: list[int], budget: int, notes: dict) -> str:
    """All chunks in one context; what does not fit the budget is cut off (and noted)."""
    kept = [(t.strip(), c) for t, c in zip(texts, counts) if t.strip()]
    context = SEPARATOR.join(t for t, _ in kept)
    if _joined_tokens([c for _, c in kept]) > budget:
        context, cut = truncate_to_tokens(context, budget)
        notes["truncated_tokens"] = cut
    return context


def _check_llm(llm: LLM) -> None:
    window = getattr(llm, "context_window", None)
    output = getattr(llm, "num_output", None)
    if not hasattr(llm, "stream") or not isinstance(window, int) or not isinstance(output, int):
        raise ConfigError(
            f"{llm!r} is not an LLM: it needs stream(messages), an int context_window and an "
            "int num_output (see ragcore.llms.base.LLM)"
        )
    if output < 0 or window <= output:
        raise ConfigError(
            f"the LLM's context_window ({window}) must be larger than its num_output "
            f"({output}), which must not be negative"
        )
