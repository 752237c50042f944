"""Settings: the answering backend, the embedding model for new indexes, the workspace folder."""

import streamlit as st

from ragcore import app_format, appstate
from ragcore.llms.ollama import list_ollama_models
from ragcore.llms.openai import list_openai_models
from ragcore.settings import parse_settings

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


def main() -> None:
    appstate.sidebar_status()
    st.title("Settings")
    saved = appstate.current_settings()


    def listed(kind: str) -> list[str]:
        return st.session_state.get(MODELS_KEY, {}).get(kind, [])


    def test_connection(kind: str, url: str, key: str | None) -> None:
        with appstate.friendly_errors():
            if kind == "ollama":
                models = list_ollama_models(url, timeout=5.0)
            else:
                models = list_openai_models(url, key, timeout=5.0)
            st.session_state.setdefault(MODELS_KEY, {})[kind] = models
            if models:
                st.success(f"Connected to {url}: {len(models)} model(s): {', '.join(models)}")
            else:
                st.warning(f"Connected to {url}, but it offers no models yet"
                           + (" (pull one with `ollama pull llama3.1`)." if kind == "ollama" else "."))


    def model_choice(kind: str, current: str) -> str:
        models = listed(kind)
        if models:
            index = models.index(current) if current in models else 0
            return st.selectbox("Model", models, index=index, key=f"{kind}_model_pick")
        return st.text_input("Model", value=current, key=f"{kind}_model_text",
                             help="Press “Test connection” to choose from the server's models.")


    st.subheader("Answering backend")
    backend = st.radio(
        "Backend", list(BACKENDS), index=list(BACKENDS).index(saved.llm_backend),
        format_func=lambda b: BACKENDS[b][0], captions=[c for _, c in BACKENDS.values()],
    )
    ollama_url, ollama_model = saved.ollama_url, saved.ollama_model
    openai_url, openai_model = saved.openai_base_url, saved.openai_model
    api_key, save_key = appstate.current_settings().api_key(), saved.save_api_key
    if backend == "ollama":
        ollama_url = st.text_input("Ollama address", value=saved.ollama_url)
        if st.button("Test connection"):
            test_connection("ollama", ollama_url, None)
        ollama_model = model_choice("ollama", saved.ollama_model)
    elif backend == "openai":
        openai_url = st.text_input("Server address (base URL)", value=saved.openai_base_url)
        api_key = st.text_input("API key", value=api_key or "", type="password",
                                help="Kept for this browser session only, unless you save it below.")
        save_key = st.checkbox("Save the API key in the workspace settings file",
                               value=saved.save_api_key,
                               help="Stored in plain text, readable only by your user account.")
        if st.button("Test connection"):
            test_connection("openai", openai_url, api_key or None)
        openai_model = model_choice("openai", saved.openai_model)
    cols = st.columns(2)
    temperature = cols[0].slider("Temperature", 0.0, 2.0, float(saved.temperature), 0.05,
                                 help="Lower is more focused and repeatable; higher more varied.")
    context_window = cols[1].number_input(
        "Context window (tokens; 0 = the model's own)", min_value=0, max_value=2_000_000,
        value=saved.context_window or 0, step=1024,
    )

    st.subheader("Embedding model for new indexes")
    kind = st.radio("Embeddings", list(EMBEDDINGS), index=list(EMBEDDINGS).index(saved.embedding_kind),
                    format_func=EMBEDDINGS.get)
    embedding = {"embedding_path": saved.embedding_path, "embedding_server": saved.embedding_server,
                 "embedding_url": saved.embedding_url, "embedding_model": saved.embedding_model}
    if kind == "local":
        embedding["embedding_path"] = st.text_input("Model folder", value=saved.embedding_path)
    elif kind == "server":
        embedding["embedding_server"] = st.radio(
            "Server type", ["ollama", "openai"], horizontal=True,
            index=["ollama", "openai"].index(saved.embedding_server))
        embedding["embedding_url"] = st.text_input("Server address", value=saved.embedding_url)
        embedding["embedding_model"] = st.text_input("Embedding model", value=saved.embedding_model)
    st.caption(
        "An index keeps the embedding model it was built with: vectors from different models "
        "cannot be compared, so changing the model of an index that holds documents needs "
        "re-indexing into a new index."
    )

    if st.button("Save settings", type="primary"):
        with appstate.friendly_errors():
            data = saved.to_file_dict()
            data.pop("openai_api_key", None)
            data.update(
                llm_backend=backend, ollama_url=ollama_url, ollama_model=ollama_model or "",
                openai_base_url=openai_url, openai_model=openai_model or "",
                save_api_key=bool(save_key), temperature=float(temperature),
                context_window=int(context_window) or None, embedding_kind=kind, **embedding,
            )
            new = parse_settings(data, source="the settings form")
            new.check_complete()
            appstate.save_settings(new, api_key=api_key or None)
            appstate.forget_llm()
            llm = appstate.current_llm()
            st.success(f"Saved. Answering backend: {app_format.describe_backend(llm)}.")

    names = appstate.index_names()
    if names:
        with st.expander("Use the embedding model above for an existing index"):
            target = st.selectbox("Index", names)
            if st.button("Change its embedding model"):
                with appstate.friendly_errors(), appstate.changing_workspace() as ws:
                    ws.change_embedding(target, appstate.current_settings())
                    st.success(f"Index “{target}” now uses the embedding model above.")

    st.subheader("Workspace folder")
    st.write("Indexes, uploaded files, settings and chats are kept in this folder.")
    folder = st.text_input("Folder", value=str(appstate.workspace_root()))
    if st.button("Use this folder", disabled=folder == str(appstate.workspace_root())):
        with appstate.friendly_errors():
            appstate.set_workspace_root(folder)
            st.rerun()
    st.caption("This applies to this browser session. To always start with another folder, start "
               "the app with the environment variable RAGCORE_WORKSPACE set to it.")
    if backend == "auto":
        st.button("Look for a local Ollama again", on_click=appstate.forget_llm)


with appstate.friendly_errors():
    main()
