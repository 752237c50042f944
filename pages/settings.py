"""Settings: the answering model, the embedding model for new indexes, the workspace folder
(the folder, the context window and an index's embedding model under Advanced).

The backends offered and their fields come from the registries (``webapp.settings.settings_form``).
"""

import os

import streamlit as st

from ragcore.backend import secret_value
from ragcore.embeddings import embedding_backends
from ragcore.llms import llm_backends, ollama_url
from ragcore.present import format as fmt
from ragcore.workspace.settings import AUTO
from webapp.team import team_state
from webapp.settings import model_setup as setup
from webapp.settings import packaged_models as packaged
from webapp.settings import settings_form as form
from webapp.settings.advanced import advanced_toggle
from webapp import shell, state
from webapp.session import Widget, session

TEMPERATURE_NOTE = ("How adventurous the wording is: 0 gives the same careful answer "
                    "every time, higher values vary the words (and invent more).")
CONTEXT_WINDOW_NOTE = ("How much text the model can read at once (a token is about ¾ of a "
                       "word): the question, the passages and the answer must fit in it.")
LARGEST_FILE_NOTE = ("Bigger files are listed as not indexed, with their size, instead of "
                     "keeping the machine busy for hours (a 200 MB text takes hours to embed on "
                     "a small machine).")
SERVER_BACKENDS = ("ollama", "openai")  # the model servers model_setup knows how to ask
AUTOMATIC = {AUTO: ("Automatic", f"A local Ollama if one is running, otherwise {fmt.BUILT_IN} "
                               "(extractive answers only if it cannot load).")}


def backend_form(saved, *, advanced: bool) -> dict:
    """The answering model's fields the person chose (the context window under Advanced)."""
    backend = form.choose_backend("Answers come from", llm_backends, saved.llm_backend,
                                  extra=AUTOMATIC, labels=form.LABELS,
                                  key=Widget.LLM_BACKEND)
    changes = {"llm_backend": backend}
    if backend == AUTO:
        # where 'auto' looks (ragcore.llms.resolve): $RAGCORE_LLM_BASE_URL, else the usual place
        setup.automatic_status(os.environ.get("RAGCORE_LLM_BASE_URL") or ollama_url())
    else:
        changes["llms"] = form.with_backend(saved.llms, backend,
                                            server_form(saved, backend, advanced=advanced))
    cols = st.columns(2)
    changes["temperature"] = cols[0].slider(
        "Temperature", 0.0, 2.0, float(saved.temperature), 0.05,
        help="Lower is more focused and repeatable; higher more varied.")
    cols[0].caption(TEMPERATURE_NOTE)
    if not advanced:
        return changes
    changes["context_window"] = int(cols[1].number_input(
        "Context window (tokens; 0 = the model's own)", min_value=0, max_value=2_000_000,
        value=saved.context_window or 0, step=1024)) or None
    cols[1].caption(CONTEXT_WINDOW_NOTE)
    return changes


def server_form(saved, backend: str, *, advanced: bool) -> dict:
    """One backend's fields; for a model server, its addresses, models, download and test."""
    values = saved.llm_settings(backend)
    server = backend in SERVER_BACKENDS
    if server:
        setup.preset_buttons(backend)
        url = session.widget(Widget.setting("llms", backend, "url"), values.url)
        key = session.widget(Widget.setting("llms", backend, "api_key")) or secret_value(
            getattr(values, "api_key", None))
        setup.before_fields(backend, url, key)
    if backend == "local":
        packaged.offer_installed()
    now = packaged.in_use_notes(packaged.current_or_none()) if backend == "local" else {}
    chosen = form.backend_fields("llms", llm_backends.get(backend), values, in_use=now,
                                 advanced=advanced)
    if server:
        setup.server_panel(backend, chosen)
    return chosen


def embedding_form(saved) -> dict:
    """Which embedding model new indexes get, and its settings (shown under Advanced)."""
    backend = form.choose_backend("Embeddings", embedding_backends, saved.embedding_backend,
                                  key="embedding_backend")
    values = form.backend_fields("embedders", embedding_backends.get(backend),
                                 saved.embedder_settings(backend))
    st.caption("An index keeps the embedding model it was built with: what one model makes of "
               "a passage's meaning cannot be compared with another's, so changing the model of "
               "an index that holds documents needs re-indexing into a new index.")
    return {"embedding_backend": backend,
            "embedders": form.with_backend(saved.embedders, backend, values)}


def largest_file(saved) -> int:
    """The largest file indexed, in MB, and how it agrees with the uploads the app takes."""
    largest = int(st.number_input("Largest file (MB)", min_value=1, max_value=1_000_000,
                                  value=saved.max_file_mb, step=100))
    st.caption(f"{LARGEST_FILE_NOTE} {upload_limit_note(largest)}")
    return largest


def upload_limit_note(largest: int) -> str:
    """How the largest file indexed and the largest upload the app takes agree (the upload
    limit is the server's ``server.maxUploadSize``, .streamlit/config.toml)."""
    limit = int(st.get_option("server.maxUploadSize"))
    if largest <= limit:
        return f"Uploads in the app take files of up to {limit} MB, so this limit applies."
    return (f"Uploads in the app take files of up to {limit} MB each: a larger limit here "
            "applies only to folders indexed from the command line.")


def save_keys_choice(saved, changes: dict) -> None:
    """Whether API keys go into the settings file, asked only when a chosen backend has one."""
    chosen = [embedding_backends.get(changes["embedding_backend"])]
    if changes["llm_backend"] != AUTO:
        chosen.append(llm_backends.get(changes["llm_backend"]))
    if any(form.has_secret(backend) for backend in chosen):
        changes["save_api_key"] = st.checkbox(
            "Save API keys in the workspace settings file", value=saved.save_api_key,
            help="Stored in plain text, readable only by your user account. Otherwise they are "
                 "kept for this browser session only.")


def change_index_embedding() -> None:
    names = team_state.listed(state.workspace(), state.index_names(), action="ingest")
    if not names:
        return
    with st.expander("Use the embedding model above for an existing index"):
        target = st.selectbox("Index", names)
        if st.button("Change its embedding model"):
            with shell.friendly_errors():
                state.workspace().change_embedding(target, state.current_settings())
                st.success(f"Index “{target}” now uses the embedding model above.")


def workspace_form() -> None:
    st.write("Indexes, uploaded files, settings and chats are kept in this folder.")
    if team_state.current()[0] is not None:  # the team's database is this folder's
        st.code(str(state.workspace_root()), language=None)
        st.caption("A team workspace stays in the folder the app was started with "
                   "(RAGCORE_WORKSPACE).")
        return
    current = str(state.workspace_root())
    folder = st.text_input("Folder", value=current)
    if st.button("Use this folder", disabled=folder == current):
        with shell.friendly_errors():
            state.set_workspace_root(folder)
            st.rerun()
    st.caption("This applies to this browser session. To always start with another folder, "
               "start the app with the environment variable RAGCORE_WORKSPACE set to it.")


def main() -> None:
    shell.page_setup()
    st.title("Settings")
    saved = state.current_settings()
    with st.sidebar:
        advanced = advanced_toggle()
    st.subheader("Answering model")
    changes = backend_form(saved, advanced=advanced)
    st.subheader("Built-in models")  # one name: "the built-in model" (fmt.BUILT_IN)
    packaged.packaged_models_panel(advanced=advanced)
    if advanced:  # which model turns passages into numbers: kept as saved without Advanced
        st.subheader("Embedding model for new indexes")
        changes.update(embedding_form(saved))
    else:
        st.subheader("Documents")
        changes["embedding_backend"] = saved.embedding_backend
    changes["max_file_mb"] = largest_file(saved)
    save_keys_choice(saved, changes)
    team, user = team_state.current()
    if team is not None and not user.is_admin:  # the settings are the whole workspace's
        st.info("Only an admin saves the workspace's settings: ask one of your admins.")
    elif st.button("Save settings", type="primary"):
        with shell.friendly_errors():
            state.save_settings(state.settings_with(saved, changes))
            state.forget_llm()
            st.success("Saved. Answering: "
                       f"{fmt.describe_backend(state.current_llm(), advanced=advanced)}.")
    if advanced:
        change_index_embedding()
        st.subheader("Workspace folder")
        workspace_form()
    if changes["llm_backend"] == AUTO:
        st.button("Look for a local Ollama again", on_click=state.forget_llm)


with shell.friendly_errors():
    main()
