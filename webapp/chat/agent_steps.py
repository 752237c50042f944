"""An agent's progress and its steps shown while it works, before its answer.

An agent's reply streams only its final answer; ``ragcore.chat.agent_states`` reads it in a
worker thread and tells, in the page's own thread (Streamlit draws only there), the step under
way with its seconds from the start (before the model's first token) and each step as it ends.
This module hands those to the page's callbacks: ``progress(line)`` when the line's text
changes, ``show(number, step)`` for a step that ended. The reply's chunks pass through
unchanged; an error in the reply is raised where the chunks are read. ``step_markdown`` draws
a step, ``reasoned`` counts the steps drawn.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from ragcore.chat import StepTaken, agent_states
from ragcore.present import format as fmt, trace_view


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
    head, *lines = trace_view.format_step(number, step, advanced=advanced).splitlines()
    said = []
    for line in lines:
        label, sep, rest = line.partition(": ")
        said.append(f"**{label}:** {fmt.markdown_text(rest)}" if sep else fmt.markdown_text(line))
    return "  \n".join([f"**{head}**", *said])


def listed(steps: list[dict[str, Any]]) -> list[tuple[int, dict[str, Any]]]:
    """The steps shown, numbered: the answer's step is the reply itself."""
    return [(n, step) for n, step in enumerate(steps, 1) if "answer" not in step]


def reasoned(steps: int) -> str:
    """The folded steps' label, counting the steps listed in it."""
    return f"Reasoned in {steps} {'step' if steps == 1 else 'steps'}"
