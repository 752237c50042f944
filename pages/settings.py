"""Settings: the answering backend, the embedding model for new indexes, the workspace folder."""

import streamlit as st

from ragcore.present import format as fmt
from webapp import shell, state
from ragcore.llms.ollama import list_ollama_models
from ragcore.llms.openai import list_openai_models

BACKENDS = {
    "auto": ("Automatic", "A local Ollama if one is running, otherwise extractive answers."),
    "extractive": ("Extractive (offline)",
                   "No language model: answers quote the most relevant sentences."),
    "ollama": ("Ollama", "A model served by Ollama on this computer or your network."),
    "openai": ("OpenAI-compatible server",
               "OpenAI, or any server speaking its API (vLLM, LM Studio, llama.cpp …)."),
}
EMBEDDINGS = {
    "packaged": "Packaged all-MiniLM-L6-v2 (offline, the default)",
    "local": "Another sentence-transformers model in a local folder",
    "server": "Embeddings from a server (Ollama or OpenAI-compatible)",
}
MODELS_KEY = "listed_models"


def test_connection(kind: str, url: str, key: str | None) -> None:
    """List the server's models (remembered for the model picker), or explain the failure."""
    with shell.friendly_errors():
        if kind == "ollama":
            models = list_ollama_models(url, timeout=5.0)
        else:
            models = list_openai_models(url, key, timeout=5.0)
        st.session_state.setdefault(MODELS_KEY, {})[kind] = models
        if models:
            st.success(f"Connected to {url}: {len(models)} model(s): {', '.join(models)}")
        else:
            hint = " (pull one with `ollama pull llama3.1`)" if kind == "ollama" else ""
            st.warning(f"Connected to {url}, but it offers no models yet{hint}.")


def model_choice(kind: str, current: str) -> str:
    models = st.session_state.get(MODELS_KEY, {}).get(kind, [])
    if models:
        index = models.index(current) if current in models else 0
        return st.selectbox("Model", models, index=index, key=f"{kind}_model_pick")
    return st.text_input("Model", value=current, key=f"{kind}_model_text",
                         help="Press “Test connection” to choose from the server's models.")


def backend_form(saved) -> tuple[dict, str | None]:
    """The answering-backend fields the person chose, and the API key (kept apart)."""
    backend = st.radio(
        "Backend", list(BACKENDS), index=list(BACKENDS).index(saved.llm_backend),
        format_func=lambda b: BACKENDS[b][0], captions=[c for _, c in BACKENDS.values()],
    )
    changes = {"llm_backend": backend}
    api_key = saved.api_key()
    if backend == "ollama":
        url = changes["ollama_url"] = st.text_input("Ollama address", value=saved.ollama_url)
        if st.button("Test connection"):
            test_connection("ollama", url, None)
        changes["ollama_model"] = model_choice("ollama", saved.ollama_model) or ""
    elif backend == "openai":
        url = changes["openai_base_url"] = st.text_input("Server address (base URL)",
                                                         value=saved.openai_base_url)
        api_key = st.text_input("API key", value=api_key or "", type="password",
                                help="Kept for this browser session only, unless saved below.")
        changes["save_api_key"] = st.checkbox(
            "Save the API key in the workspace settings file", value=saved.save_api_key,
            help="Stored in plain text, readable only by your user account.")
        if st.button("Test connection"):
            test_connection("openai", url, api_key or None)
        changes["openai_model"] = model_choice("openai", saved.openai_model) or ""
    cols = st.columns(2)
    changes["temperature"] = cols[0].slider(
        "Temperature", 0.0, 2.0, float(saved.temperature), 0.05,
        help="Lower is more focused and repeatable; higher more varied.")
    changes["context_window"] = int(cols[1].number_input(
        "Context window (tokens; 0 = the model's own)", min_value=0, max_value=2_000_000,
        value=saved.context_window or 0, step=1024)) or None
    return changes, api_key or None


def embedding_form(saved) -> dict:
    kind = st.radio("Embeddings", list(EMBEDDINGS), format_func=EMBEDDINGS.get,
                    index=list(EMBEDDINGS).index(saved.embedding_kind))
    changes = {"embedding_kind": kind}
    if kind == "local":
        changes["embedding_path"] = st.text_input("Model folder", value=saved.embedding_path)
    elif kind == "server":
        servers = ["ollama", "openai"]
        changes["embedding_server"] = st.radio("Server type", servers, horizontal=True,
                                               index=servers.index(saved.embedding_server))
        changes["embedding_url"] = st.text_input("Server address", value=saved.embedding_url)
        changes["embedding_model"] = st.text_input("Embedding model",
                                                   value=saved.embedding_model)
    st.caption("An index keeps the embedding model it was built with: vectors from different "
               "models cannot be compared, so changing the model of an index that holds "
               "documents needs re-indexing into a new index.")
    return changes


def change_index_embedding() -> None:
    names = state.index_names()
    if not names:
        return
    with st.expander("Use the embedding model above for an existing index"):
        target = st.selectbox("Index", names)
        if st.button("Change its embedding model"):
            with shell.friendly_errors(), state.changing_workspace() as ws:
                ws.change_embedding(target, state.current_settings())
                st.success(f"Index “{target}” now uses the embedding model above.")


def workspace_form() -> None:
    st.write("Indexes, uploaded files, settings and chats are kept in this folder.")
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
    st.subheader("Answering backend")
    changes, api_key = backend_form(saved)
    st.subheader("Embedding model for new indexes")
    changes.update(embedding_form(saved))
    if st.button("Save settings", type="primary"):
        with shell.friendly_errors():
            state.save_settings(state.settings_with(saved, changes), api_key=api_key)
            state.forget_llm()
            st.success("Saved. Answering backend: "
                       f"{fmt.describe_backend(state.current_llm())}.")
    change_index_embedding()
    st.subheader("Workspace folder")
    workspace_form()
    if changes["llm_backend"] == "auto":
        st.button("Look for a local Ollama again", on_click=state.forget_llm)


with shell.friendly_errors():
    main()
