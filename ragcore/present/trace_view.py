"""A trace as people read it: table rows for stages and LLM calls, the turn's reasoning, and
notices about how the answer was made.

``work_summary`` is the one line every page shows for what an answer took: offline (the
extractive backend) it counts extractive steps and no tokens, since no language model ran.

Works on a ``Trace`` or on its ``to_dict()`` form (what saved chats keep), so a chat reopened
from disk shows the same details as a live answer. ``notices`` turns the notes the engines leave
when something was not as asked (``prompt_budget``: parts of a prompt trimmed to fit the model's
window; ``condense_rejected``: a rewritten question not used; ``empty_reply``: a blank reply)
into sentences for people; nothing the engines drop or replace goes unmentioned.
"""

from __future__ import annotations

from typing import Any

from ..trace import Trace
from .support import is_extractive

TraceLike = Trace | dict[str, Any]


def trace_dict(trace: TraceLike | None) -> dict[str, Any]:
    """The plain-data form of a trace (``{}`` for none)."""
    if trace is None:
        return {}
    return trace.to_dict() if isinstance(trace, Trace) else trace


def stage_rows(trace: TraceLike | None) -> list[dict[str, Any]]:
    """One row per stage: name, milliseconds, and its details as short text."""
    rows = []
    for stage in trace_dict(trace).get("stages", []):
        detail = stage.get("detail") or {}
        rows.append(
            {
                "stage": stage["name"],
                "ms": round(stage["seconds"] * 1000, 1),
                "details": ", ".join(f"{k}={_short(v)}" for k, v in detail.items()),
            }
        )
    return rows


def llm_call_rows(trace: TraceLike | None) -> list[dict[str, Any]]:
    """One row per LLM call: purpose, model, tokens in and out, milliseconds."""
    return [
        {
            "call": number,
            "purpose": call["purpose"],
            "model": call.get("model", ""),
            "tokens in": call["tokens_in"],
            "tokens out": call["tokens_out"],
            "ms": round(call["seconds"] * 1000, 1),
        }
        for number, call in enumerate(trace_dict(trace).get("llm_calls", []), 1)
    ]


def totals(trace: TraceLike | None) -> dict[str, float]:
    """LLM calls, tokens in and out, and seconds over all stages."""
    data = trace_dict(trace)
    calls = data.get("llm_calls", [])
    return {
        "llm_calls": len(calls),
        "tokens_in": sum(c["tokens_in"] for c in calls),
        "tokens_out": sum(c["tokens_out"] for c in calls),
        "seconds": sum(s["seconds"] for s in data.get("stages", [])),
    }


def work_summary(trace: TraceLike | None) -> str:
    """What making an answer took, in one line: '2 extractive steps · 0.12 s' offline (the
    extractive backend is no language model: its token counts mean nothing to a reader), '2 LLM
    calls · 1,077 tokens in, 40 out · 1.20 s' with a model."""
    total = totals(trace)
    calls, seconds = int(total["llm_calls"]), f"{total['seconds']:.2f} s"
    if not calls:
        return f"no model calls · {seconds}"
    if is_extractive(trace_dict(trace)):
        return f"{calls} {_plural(calls, 'extractive step')} · {seconds}"
    return (f"{calls} {_plural(calls, 'LLM call')} · {int(total['tokens_in']):,} tokens in, "
            f"{int(total['tokens_out']):,} out · {seconds}")


def work_metrics(trace: TraceLike | None) -> dict[str, int | float]:
    """The same figures by label, for metrics or table columns: extractive steps and seconds
    offline; LLM calls, tokens in, tokens out and seconds with a model."""
    total = totals(trace)
    seconds = round(total["seconds"], 2)
    if total["llm_calls"] and is_extractive(trace_dict(trace)):
        return {"Extractive steps": int(total["llm_calls"]), "Seconds": seconds}
    return {"LLM calls": int(total["llm_calls"]), "Tokens in": int(total["tokens_in"]),
            "Tokens out": int(total["tokens_out"]), "Seconds": seconds}


def call_titles(trace: TraceLike | None) -> list[str]:
    """A title per LLM call (``llm_call_rows`` order): 'Extractive step 1: qa (4.2 ms)' offline,
    'LLM call 1: qa (1,077 → 40 tokens, 812.0 ms)' with a model."""
    offline = is_extractive(trace_dict(trace))
    titles = []
    for row in llm_call_rows(trace):
        if offline:
            titles.append(f"Extractive step {row['call']}: {row['purpose']} ({row['ms']} ms)")
        else:
            titles.append(f"LLM call {row['call']}: {row['purpose']} ({row['tokens in']:,} → "
                          f"{row['tokens out']:,} tokens, {row['ms']} ms)")
    return titles


def _plural(count: int, noun: str) -> str:
    return noun if count == 1 else f"{noun}s"


def prompt_text(call: dict[str, Any]) -> str:
    """An LLM call's prompt messages as plain text, one 'role:' header per message."""
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in call.get("messages", []))


def notices(trace: TraceLike | None) -> list[str]:
    """What a reader should know about how an answer was made, one plain sentence each: prompt
    parts trimmed to fit the model's window, a rewrite of the question not used, an empty reply."""
    notes = trace_dict(trace).get("notes", {})
    said = []
    for note in notes.get("prompt_budget") or []:  # "PROMPT: what was cut", see prompt_budget
        prompt, _, what = str(note).partition(": ")
        where = f"The {prompt} prompt" if what else "A prompt"
        said.append(f"{where} was trimmed to fit the model's context window: "
                    f"{_sentence_end(what or prompt)}")
    if notes.get("condense_rejected"):
        said.append("The model's rewrite of your question was not used: "
                    f"{_sentence_end(str(notes['condense_rejected']))}")
    if notes.get("empty_reply"):
        said.append("The model sent back an empty reply, so the answer says so instead.")
    return said


def turn_details(trace: TraceLike | None) -> dict[str, Any]:
    """What a chat turn did besides answering: the condensed question, reasoning steps, and
    ``notices`` (when there are any)."""
    notes = trace_dict(trace).get("notes", {})
    details: dict[str, Any] = {}
    if notes.get("condensed_question"):
        details["condensed_question"] = notes["condensed_question"]
    if notes.get("condense_skipped"):
        details["condense_skipped"] = notes["condense_skipped"]
    if notes.get("reasoning"):
        details["reasoning"] = list(notes["reasoning"])
    if notes.get("stopped"):
        details["stopped"] = notes["stopped"]
    said = notices(trace)
    if said:
        details["notices"] = said
    return details


# What an agent's tools do, in a person's words (their names are the model's and Advanced's).
TOOL_DOINGS = {"search_documents": "searching the documents"}


def step_doing(step: dict[str, Any], *, advanced: bool = True) -> str:
    """What a step does: its tool's name under ``advanced``, else what the tool does."""
    action = step.get("action") or "thinking"
    if advanced:
        return str(action)
    return TOOL_DOINGS.get(str(action), "thinking" if action == "thinking" else "using a tool")


def format_step(number: int, step: dict[str, Any], *, advanced: bool = True) -> str:
    """A reasoning step as plain text: Thought / Action / Input / Observation or Answer; without
    ``advanced``, the tool said by what it does ("Searching the documents for: ...")."""
    lines = [f"Step {number}"]
    if step.get("thought"):
        lines.append(f"Thought: {step['thought']}")
    if "answer" in step:
        lines.append(f"Answer: {step['answer']}")
        return "\n".join(lines)
    asked = _short(step.get("action_input"), 300)
    if advanced:
        lines += [f"Action: {step.get('action')}", f"Action input: {asked}"]
    else:
        doing, given = step_doing(step, advanced=False), step.get("action_input")
        if isinstance(given, dict):  # {'input': 'sky'}: the words, not the arguments' names
            asked = _short(" ".join(str(v) for v in given.values()), 300)
        lines.append(f"{doing[:1].upper()}{doing[1:]} for: {asked}")
    if step.get("observation") is not None:
        lines.append(f"{'Observation' if advanced else 'Found'}: "
                     f"{_short(step['observation'], 600)}")
    return "\n".join(lines)


def _sentence_end(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _short(value: Any, limit: int = 80) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
