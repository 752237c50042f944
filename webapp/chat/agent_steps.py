"""An agent's thoughts, tool calls and observations shown while it works, before its answer.

An agent's reply streams only its final answer (``ragcore.agent``): the steps before it yield no
text, so a page reading the reply would sit silent through every tool call. The agent records
each step in the trace (``trace.notes["reasoning"]``) as it finishes; ``stream_with_steps``
reads the reply in a worker thread and, while it waits for text, hands each newly recorded
step to ``show`` in the page's own thread (Streamlit draws only there). The reply's chunks pass
through unchanged; an error in the reply is raised where the chunks are read.
"""

from __future__ import annotations

import queue
import threading
from typing import Any, Callable, Iterable, Iterator

POLL_SECONDS = 0.2
_END = object()


def stream_with_steps(
    chunks: Iterable[str], notes: dict[str, Any], show: Callable[[int, dict[str, Any]], None]
) -> Iterator[str]:
    """``chunks`` as they come; each reasoning step noted in ``notes`` meanwhile goes to
    ``show(number, step)`` (the final answer's step is the reply itself and is not shown)."""
    items: queue.Queue[Any] = queue.Queue()
    stop = threading.Event()
    threading.Thread(target=_read, args=(chunks, items, stop), daemon=True,
                     name="ragcore-agent-reply").start()
    shown = 0
    try:
        while True:
            try:
                item = items.get(timeout=POLL_SECONDS)
            except queue.Empty:
                item = None
            shown = _show_new(notes.get("reasoning") or [], shown, show)
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            if item is not None:
                yield item
    finally:
        stop.set()  # a reader that stopped early (Stop pressed) ends the reply at its next chunk


def _read(chunks: Iterable[str], items: queue.Queue, stop: threading.Event) -> None:
    iterator = iter(chunks)
    try:
        for chunk in iterator:
            items.put(chunk)
            if stop.is_set():
                break
    except BaseException as exc:  # handed to the page's thread, which raises it
        items.put(exc)
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
        items.put(_END)


def _show_new(steps: list[dict[str, Any]], shown: int,
              show: Callable[[int, dict[str, Any]], None]) -> int:
    for number in range(shown + 1, len(steps) + 1):
        if "answer" not in steps[number - 1]:
            show(number, steps[number - 1])
    return len(steps)
