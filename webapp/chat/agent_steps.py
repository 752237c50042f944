"""An agent's progress and its steps shown while it works, before its answer.

An agent's reply streams only its final answer; ``ragcore.chat.agent_states`` reads it in a
worker thread and tells, in the page's own thread (Streamlit draws only there), the step under
way with its seconds from the start (before the model's first token) and each step as it ends.
This module hands those to the page's callbacks: ``progress(line)`` when the line's text
changes, ``show(number, step)`` for a step that ended. The reply's chunks pass through
unchanged; an error in the reply is raised where the chunks are read. ``step_markdown`` draws
a step, ``reasoned`` counts the steps drawn. Without Advanced a step is said in a person's words
(``people_lines``): never the tools' names, a None, or the format hints the model is sent.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from ragcore.chat import StepTaken, agent_states
from ragcore.present import format as fmt, trace_view

# What a person reads for a step the agent's loop handled for the model (the model's own words,
# under Advanced). A step with no action is a reply the loop could not read (``ParseError``).
UNREADABLE = "The model's step could not be read; it was asked again."
REPEATED_SEARCH = "It searched the same words again; the earlier passages were reused."
TOOL_FAILED = "It could not be done as asked; the model was told what to fix."
TOOL_WORDS = {"search_documents": "the document search"}  # a tool named in the model's thought
# How ``ragcore.agent.task.REPEATED`` begins (the app reaches the library through few modules;
# tests/app/test_app_agent_steps.py formats the real one, so a change of words is caught).
_REPEATED_START = "You already called "


def stream_with_steps(
    chunks: Iterable[str], notes: dict[str, Any], show: Callable[[int, dict[str, Any]], None],
    progress: Callable[[str], None] | None = None, *, advanced: bool = False,
) -> Iterator[str]:
    """``chunks`` as they come; meanwhile the progress line to ``progress(line)`` (at once,
    then whenever it changes) and each reasoning step noted in ``notes`` to
    ``show(number, step)`` (the final answer's step is the reply itself and is not shown)."""
    said = ""
    for item in agent_states(chunks, notes, advanced=advanced):
        if isinstance(item, str):
            yield item
        elif isinstance(item, StepTaken):
            show(item.number, item.step)
        elif progress is not None and item.line() != said:
            said = item.line()
            progress(said)


def step_markdown(number: int, step: dict[str, Any], *, advanced: bool) -> str:
    """A step for st.markdown: each line's label in bold, the model's words rendered as the
    reply's are (st.text showed its Markdown's asterisks raw)."""
    if not advanced:
        return "  \n".join([f"**Step {number}**", *people_lines(step)])
    head, *lines = trace_view.format_step(number, step, advanced=advanced).splitlines()
    said = []
    for line in lines:
        label, sep, rest = line.partition(": ")
        said.append(f"**{label}:** {fmt.markdown_text(rest)}" if sep else fmt.markdown_text(line))
    return "  \n".join([f"**{head}**", *said])


def people_lines(step: dict[str, Any]) -> list[str]:
    """A step in a person's words, as Markdown lines: the model's thought (a tool's name said by
    what it does), what it searched for and what it found, or what the loop did instead."""
    lines = []
    thought = str(step.get("thought") or "")
    for name, words in TOOL_WORDS.items():
        thought = thought.replace(name, words)
    if thought.strip():
        lines.append(f"**Thought:** {fmt.markdown_text(thought)}")
    if "answer" in step:
        return [*lines, f"**Answer:** {fmt.markdown_text(str(step['answer']))}"]
    if not step.get("action"):
        return [*lines, UNREADABLE]
    given = step.get("action_input")
    words = " ".join(str(v) for v in given.values()) if isinstance(given, dict) else given
    words = " ".join(str(words or "").split())
    doing = trace_view.step_doing(step, advanced=False)
    doing = doing[:1].upper() + doing[1:]
    lines.append(f"**{doing} for:** {fmt.markdown_text(_short(words, 300))}" if words
                 else f"**{doing}.**")
    found = str(step.get("observation") or "")
    if found.startswith(_REPEATED_START):
        lines.append(REPEATED_SEARCH)
    elif found.startswith("Error:"):
        lines.append(TOOL_FAILED)
    elif found.strip():
        lines.append(f"**Found:** {fmt.markdown_text(_short(found, 600))}")
    return lines


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listed(steps: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """The steps shown, numbered: the answer's step is the reply itself."""
    return [(n, step) for n, step in enumerate(steps, 1) if "answer" not in step]


def reasoned(steps: int) -> str:
    """The folded steps' label, counting the steps listed in it."""
    return f"Reasoned in {steps} {'step' if steps == 1 else 'steps'}"
