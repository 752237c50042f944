"""The Settings page's set-up of a model server: find it, list its models, download one (Ollama),
test one and make it the default.

``settings_form`` draws any backend's fields from its registry entry; this module adds what
getting written answers working takes on this computer: one-click addresses for local servers
(``ragcore.llms.presets``), whether anything answers there and which models it holds (looked up
once per address and session; "Look again" asks anew), an Ollama download with a progress bar
that the "Stop download" button (any click, in fact) ends, and a test that sends one tiny
request before the model is saved as the default. A failed download or test changes no setting.
"""

from __future__ import annotations

import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any

import streamlit as st

from ragcore.errors import LLMConnectionError, LLMError, RagcoreError
from ragcore.http.client import is_loopback
from ragcore.llms import (
    is_chat_model, list_ollama_models_detailed, list_openai_models, preset_at, presets_for,
    pull_ollama_model, try_model,
)
from ragcore.present import format as fmt
from webapp.settings import settings_form as form
from webapp import shell, state
from webapp.session import Session, Widget, session

LOOK_TIMEOUT = 3.0
UPDATE_EVERY = 0.1  # seconds between progress bar updates (Ollama reports far more often)


def preset_buttons(backend: str) -> None:
    """One button per local server this backend speaks to, filling in its usual address."""
    presets = presets_for(backend)
    if len(presets) < 2:  # one kind of server (Ollama): its usual address is the field's default
        return
    st.caption("A server on this computer? Fill in its usual address:")
    for column, preset in zip(st.columns(len(presets)), presets):
        column.button(preset.label, key=f"preset.{preset.name}", help=preset.url,
                      on_click=_use_address, args=(backend, preset.url))


def _use_address(backend: str, url: str) -> None:
    session.preset(Widget.setting("llms", backend, "url"), url)


@dataclass(slots=True, frozen=True)
class Unlisted:
    """Why a server's models could not be listed: nothing answered, or it answered with an error."""

    message: str
    reachable: bool


def models_at(backend: str, url: str, api_key: str | None = None) -> list[Any] | Unlisted | None:
    """The models found at ``url`` (looked up once per session), why none could be listed, or
    None for a remote OpenAI-compatible server not looked up (it may charge per request)."""
    found = session.server_models
    key = f"{backend} {url}"
    if key not in found:
        if backend == "openai" and not is_loopback(url):
            return None
        found[key] = _look(backend, url, api_key)
    models = found[key]
    if isinstance(models, list):
        names = [getattr(m, "name", m) for m in models]
        chat = [n for n in names if backend != "ollama" or is_chat_model(n)]
        session.listed_models[f"llms.{backend}"] = chat
    return models


def before_fields(backend: str, url: str, api_key: str | None) -> None:
    """Look up the models at ``url`` for the fields' model picker, a model just downloaded
    chosen in it."""
    models = models_at(backend, url, api_key)
    downloaded = _listed_name(session.ollama_downloaded or "")
    if backend == "ollama" and isinstance(models, list) and downloaded in [m.name for m in models]:
        session.preset(Widget.model_pick("llms", backend), downloaded)


def _look(backend: str, url: str, api_key: str | None) -> list[Any] | Unlisted:
    try:
        if backend == "ollama":
            return list_ollama_models_detailed(url, timeout=LOOK_TIMEOUT)
        return list_openai_models(url, api_key, timeout=LOOK_TIMEOUT)
    except LLMConnectionError as exc:
        return Unlisted(str(exc), reachable=False)
    except RagcoreError as exc:  # a bad address, a refused key, something that is not the server
        return Unlisted(str(exc), reachable=True)


def forget_models(backend: str, url: str) -> None:
    session.server_models.pop(f"{backend} {url}", None)


def server_panel(backend: str, values: dict[str, Any]) -> None:
    """Under a server backend's fields: what answers at its address, downloads, the test."""
    url = str(values.get("url") or "")
    models = models_at(backend, url, values.get("api_key")) if url else None
    if isinstance(models, Unlisted) and not models.reachable:
        preset = preset_at(url)  # a usual address (a trailing slash or not): how to start it
        start = preset.start if preset else ("Check that the server is running and the "
                                             "address is right.")
        st.warning(f"Nothing answers at {url}. {start} Then press “Look again”.")
        if shell.advanced_on():  # the connection's own words ("[Errno 111] ...") are an operator's
            st.caption(models.message)
    elif isinstance(models, Unlisted):
        st.warning(f"The models at {url} could not be listed: {models.message}")
    elif models is not None:
        kind = "Ollama is" if backend == "ollama" else "The server is"
        st.success(f"{kind} running at {url} with {fmt.counted(len(models), 'model')}.")
        if backend == "ollama" and models:
            st.dataframe(fmt.model_rows(models), hide_index=True, width="stretch")
        elif models:
            st.dataframe([{"model": name} for name in models], hide_index=True, width="stretch")
    st.button("Look again", key=f"{backend}.look", on_click=forget_models, args=(backend, url))
    if backend == "ollama" and isinstance(models, list):
        download_form(url)
    test_and_default(backend, values)


def download_form(url: str) -> None:
    """A model name and a Download button; the download itself runs while the page waits."""
    stopped = session.take(Session.ollama_pulling)
    if stopped:
        st.info(f"The download of {stopped} was stopped before it finished; no setting changed. "
                "Press “Download” to continue it: Ollama keeps what it has.")
    done = session.take(Session.ollama_downloaded)
    if done:
        st.success(f"Downloaded {done}: it is chosen as the model above. Test it, then make it "
                   "the default.")
    name = st.text_input("Download a model", key="ollama.pull.name", placeholder="llama3.2:1b",
                         help="A name from https://ollama.com/library: small ones such as "
                              "llama3.2:1b or qwen2.5:1.5b run on an ordinary laptop.")
    if st.button("Download", key="ollama.pull", disabled=not name.strip()):
        download(url, name.strip())


def download(url: str, name: str) -> None:
    """Pull ``name`` with a progress bar; success reruns the page with it chosen."""
    session.ollama_pulling = name
    bar = st.progress(0.0, text=f"Asking Ollama for {name}…")
    st.button("Stop download", key="ollama.pull.stop")  # a click reruns, which ends the pull
    shown, progress = 0.0, None
    try:
        with closing(pull_ollama_model(name, url)) as pull:
            for progress in pull:
                if time.monotonic() - shown >= UPDATE_EVERY:
                    bar.progress(progress.fraction or 0.0, text=fmt.download_progress(progress))
                    shown = time.monotonic()
    except LLMError as exc:
        del session.ollama_pulling
        if progress is not None:  # where it stopped, not the last of the throttled updates
            bar.progress(progress.fraction or 0.0, text=fmt.download_progress(progress))
        st.error(f"{fmt.literal_markdown(str(exc))}\n\nNo setting changed.",
                 icon=":material/error:")
        return
    del session.ollama_pulling
    session.ollama_downloaded = name
    forget_models("ollama", url)
    st.rerun()


def _listed_name(name: str) -> str:
    return name if ":" in name else f"{name}:latest"  # how Ollama lists a name without a tag


def test_and_default(backend: str, values: dict[str, Any]) -> None:
    """Test the chosen model with one tiny request; on success, optionally save it as default."""
    columns = st.columns(2)
    tried = columns[0].button("Test this model", key=f"{backend}.try")
    make = columns[1].button("Test and make it the default", key=f"{backend}.default")
    if not (tried or make):
        return
    chosen = {k: v for k, v in values.items() if v is not None}
    with shell.friendly_errors():
        with st.spinner("Sending a short test message…"):
            check = try_model(backend, chosen)
        st.success(f"{check.model} answered in {check.seconds:.1f} s: “{check.reply}”")
        if make:
            saved = state.current_settings()
            changes = {"llm_backend": backend,
                       "llms": form.with_backend(saved.llms, backend, chosen)}
            state.save_settings(state.settings_with(saved, changes))
            state.forget_llm()
            st.success(f"Saved: answers are now written by {check.model}.")


def automatic_status(url: str) -> None:
    """For the Automatic choice: whether a local Ollama will write the answers."""
    models = models_at("ollama", url)
    chat = [m.name for m in models if is_chat_model(m.name)] if isinstance(models, list) else []
    if chat:
        st.caption(f"The Ollama at {url} has {fmt.counted(len(chat), 'chat model')}: answers "
                   "will be written "
                   f"by {chat[0]}.")
    else:
        st.caption(f"No Ollama with a chat model answers at {url}, so the built-in model "
                   "below writes the answers. Choose Ollama above to find it or download a "
                   "model.")
