"""A trace as people read it: table rows for stages and LLM calls, the turn's reasoning, and
notices about how the answer was made.

``work_summary`` is the one line every page shows for what an answer took: offline (the
extractive backend) it counts extractive steps and no tokens, since no language model ran; its
seconds are the whole answer's, the calls' own beside their count. ``stage_rows`` counts a stage
run within another once (stages keep their start), so the shares it gives add up to 100 %.

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
    """One row per stage: name, seconds, its share of the whole, its details as short text.

    A stage run within another (an LLM call inside "span choice", an embedding inside a search)
    says so instead of a share, and is counted once, in the stage holding it; the time between
    stages (the answer's check, drawing it) has a row of its own, so the shares add up to 100 %;
    the last row is the total. A trace saved before stages kept their start lists its stages
    as they were recorded, their shares of their sum."""
    stages = trace_dict(trace).get("stages", [])
    if not stages:
        return []
    within = _within(stages)
    total = _total_seconds(stages)
    top = [i for i, w in enumerate(within) if w is None]
    summed = sum(stages[i]["seconds"] for i in top)
    between = max(0.0, total - summed)
    # stages run side by side (a plan's concurrent calls) sum to more than the whole: their
    # shares are of that sum
    shares = _percentages([stages[i]["seconds"] for i in top] + [between], summed + between)
    share_of = dict(zip(top, shares))
    rows = [{"stage": stage["name"], "seconds": round(stage["seconds"], 2),
             "share": (f"{share_of[i]} %" if within[i] is None
                       else f"within {stages[within[i]]['name']}"),
             "details": _details(stage)}
            for i, stage in enumerate(stages)]
    if round(between, 2) > 0:
        rows.append({"stage": "between the stages", "seconds": round(between, 2),
                     "share": f"{shares[-1]} %", "details": "not timed by a stage"})
    counted = ("from the first stage's start to the last one's end" if _started(stages)
               else "the stages' sum")
    if summed > total + 0.005:
        counted += (f"; stages ran side by side: the shares are of their {summed:.2f} s "
                    "added up")
    rows.append({"stage": "total", "seconds": round(total, 2), "share": "100 %",
                 "details": counted})
    return rows


def _details(stage: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in (stage.get("detail") or {}).items())


def _started(stages: list[dict[str, Any]]) -> bool:
    return all(stage.get("start") is not None for stage in stages)


def _within(stages: list[dict[str, Any]]) -> list[int | None]:
    """For each stage, the position of the innermost stage it ran within, or None. A stage is
    recorded when it ends, so one holding another comes after it, and lasts longer; an LLM
    call's stage holds nothing (calls run side by side are not within one another)."""
    if not _started(stages):
        return [None] * len(stages)
    slack = 1e-3  # starts are saved to the tenth of a millisecond
    found: list[int | None] = []
    for i, inner in enumerate(stages):
        start, end = inner["start"], inner["start"] + inner["seconds"]
        holders = [j for j in range(i + 1, len(stages))
                   if not stages[j]["name"].startswith("llm: ")
                   and stages[j]["seconds"] > inner["seconds"] + slack
                   and stages[j]["start"] <= start + slack
                   and end <= stages[j]["start"] + stages[j]["seconds"] + slack]
        found.append(min(holders, key=lambda j: stages[j]["seconds"]) if holders else None)
    return found


def _total_seconds(stages: list[dict[str, Any]]) -> float:
    """From the first stage's start to the last one's end; the stages' sum without starts."""
    if not stages or not _started(stages):
        return sum(stage["seconds"] for stage in stages)
    return (max(stage["start"] + stage["seconds"] for stage in stages)
            - min(stage["start"] for stage in stages))


def _percentages(parts: list[float], total: float) -> list[int]:
    """Whole percentages of ``total`` that add up to 100 (the largest remainders rounded up)."""
    if total <= 0:
        return [0] * len(parts)
    exact = [100 * part / total for part in parts]
    shares = [int(e) for e in exact]
    for i in sorted(range(len(parts)), key=lambda i: shares[i] - exact[i])[:100 - sum(shares)]:
        shares[i] += 1
    return shares


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
    """LLM calls, their tokens in and out and seconds, and the seconds the answer took in all
    (``stage_rows``' total: nested stages counted once)."""
    data = trace_dict(trace)
    calls = data.get("llm_calls", [])
    return {
        "llm_calls": len(calls),
        "tokens_in": sum(c["tokens_in"] for c in calls),
        "tokens_out": sum(c["tokens_out"] for c in calls),
        "llm_seconds": sum(c["seconds"] for c in calls),
        "seconds": _total_seconds(data.get("stages", [])),
    }


def work_summary(trace: TraceLike | None) -> str:
    """What making an answer took, in one line, each figure saying what it counts: '2
    extractive steps (0.05 s) · 0.12 s in all' offline (the extractive backend is no language
    model: its token counts mean nothing to a reader), '1 LLM call (10.40 s) · 1,077 tokens in,
    40 out · 42.90 s in all' with a model (the rest: search, the answer's check, ...)."""
    total = totals(trace)
    calls, seconds = int(total["llm_calls"]), f"{total['seconds']:.2f} s in all"
    if not calls:
        return f"no model calls · {seconds}"
    spent = f"({total['llm_seconds']:.2f} s)"
    if is_extractive(trace_dict(trace)):
        return f"{calls} {_plural(calls, 'extractive step')} {spent} · {seconds}"
    return (f"{calls} {_plural(calls, 'LLM call')} {spent} · {int(total['tokens_in']):,} tokens "
            f"in, {int(total['tokens_out']):,} out · {seconds}")


def work_metrics(trace: TraceLike | None) -> dict[str, int | float]:
    """The same figures by label, for metrics or table columns: extractive steps and seconds
    offline; LLM calls, the seconds they took, tokens in, tokens out and seconds in all with a
    model."""
    total = totals(trace)
    seconds = round(total["seconds"], 2)
    if total["llm_calls"] and is_extractive(trace_dict(trace)):
        return {"Extractive steps": int(total["llm_calls"]), "Seconds": seconds}
    return {"LLM calls": int(total["llm_calls"]),
            "Seconds in LLM calls": round(total["llm_seconds"], 2),
            "Tokens in": int(total["tokens_in"]), "Tokens out": int(total["tokens_out"]),
            "Seconds": seconds}


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
