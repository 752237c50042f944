"""A slow model with one shared slot, for browser tests of what a person sees while it works.

``SlowModel`` behaves as the packaged model does where a person can see it: every request of
the process takes the one slot in arrival order (``ragcore.llms.slots``, sharing a question's
slot inside ``one_turn``, as ``LocalEngine`` does), reads its prompt for ``READ_SECONDS`` before
its first word, reports a measured reading rate, then writes a word every ``WORD_SECONDS``.

The app runs in its own process: ``register()`` offers it there as the LLM backend
``slowmodel`` (``RAGCORE_LLM=slowmodel``); ``sitecustomize_dir(folder)`` writes the
``sitecustomize.py`` that calls it at the interpreter's start (put ``folder`` and this folder on
``PYTHONPATH``). ``RAGCORE_SLOW_READ`` and ``RAGCORE_SLOW_WORD`` change the pace, and
``RAGCORE_SLOW_REPLY`` the reply.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

from ragcore.llms.slots import SlotQueue, current_turn

REPLY = ("Beautiful is better than ugly, says the Zen of Python, before explicit over "
         "implicit and simple over complex.")
SLOTS = SlotQueue(1)  # the process's one slot, as a 1-slot packaged engine has


class SlowModel:
    """A scripted model that waits its turn, reads, then writes slowly."""

    model = "slowmodel"
    context_window = 4096
    num_output = 256

    def __init__(self) -> None:
        self.read_seconds = float(os.environ.get("RAGCORE_SLOW_READ", "3"))
        self.word_seconds = float(os.environ.get("RAGCORE_SLOW_WORD", "0.15"))
        self.reply = os.environ.get("RAGCORE_SLOW_REPLY", REPLY)

    def reading_rate(self) -> float:
        return 60.0  # tokens a second: "Reading the passages: 1 of 3 read" moves visibly

    def stream(self, messages: Sequence) -> Iterator[str]:
        with admitted():
            time.sleep(self.read_seconds)
            for word in self.reply.split(" "):
                time.sleep(self.word_seconds)
                yield word + " "


@contextmanager
def admitted() -> Iterator[None]:
    """One slot for this request (the question's, inside ``one_turn``), waited for here."""
    turn = current_turn()
    if turn is not None:
        turn.admitted(SLOTS)
        yield
        return
    with SLOTS.enter() as ticket:
        ticket.wait()
        yield


def register() -> None:
    from ragcore.backend import Backend, NoSettings
    from ragcore.llms.registry import register_llm_backend

    register_llm_backend(Backend(
        name="slowmodel", label="Slow test model", description="A slow model for tests.",
        settings=NoSettings, build=lambda settings, options: SlowModel(),
        describe=lambda llm: "the slow test model"), replace=True)


def sitecustomize_dir(folder: Path) -> Path:
    """A folder whose ``sitecustomize.py`` registers the model in every Python started with
    it on ``PYTHONPATH``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text("import slow_model\nslow_model.register()\n")
    return folder
