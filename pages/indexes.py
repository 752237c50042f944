"""Indexes: what each index holds, its documents and chunks, pictures of the corpus, management."""

import altair as alt
import streamlit as st

from ragcore.present import format as fmt
from webapp.summaries import summarise_document, summarise_index
from webapp import shell, state

CONFIRM_DOC = "confirm_delete_doc"


def rows_of(columns: dict, *keys: str) -> list[dict]:
    """Chart columns (dict of lists) as records for altair."""
    return [dict(zip(keys, values)) for values in zip(*(columns[k] for k in keys))]


def overview(infos) -> None:
    st.dataframe(
        [{"index": i.name, "files": i.files, "documents": i.documents, "chunks": i.nodes,
          "size on disk": fmt.human_size(i.bytes_on_disk),
          "embedding model": i.embed_model, "created": i.created, "updated": i.updated}
         for i in infos],
        hide_index=True, width="stretch",
    )


def summary(info) -> None:
    cols = st.columns(5)
    cols[0].metric("Files", info.files, help=f"{info.documents} documents (one per PDF page)")
    cols[1].metric("Chunks", info.nodes)
    cols[2].metric("Tokens", info.tokens or 0)
    cols[3].metric("Size on disk", fmt.human_size(info.bytes_on_disk))
    cols[4].metric("Embedding model", info.embed_model or "?")
    overlap = "default" if info.chunk_overlap is None else info.chunk_overlap
    st.caption(f"Created {info.created or '?'} · updated {info.updated or '?'} · "
               f"chunk size {info.chunk_size or 'default'}, overlap {overlap}")


def document_actions(name: str, key: str, row: dict) -> None:
    cols = st.columns(3)
    show_chunks = cols[0].toggle("View its chunks")
    if cols[1].button("Re-index", help="Read the file again and embed it anew."):
        ws = state.workspace()
        state.ensure_embedder_loaded(ws.embedder_for(name))
        with st.spinner(f"Re-indexing {row['file']}…"):
            report = ws.reindex_document(name, key)
        st.success(report.summary())
    if cols[2].button("Delete…"):
        st.session_state[CONFIRM_DOC] = key
    if st.session_state.get(CONFIRM_DOC) == key:
        st.warning(f"Delete **{row['file']}** and its {row['chunks']} chunks from “{name}”?")
        yes, no = st.columns(2)
        if yes.button("Yes, delete it", type="primary"):
            state.workspace().delete_document(name, key)
            st.session_state.pop(CONFIRM_DOC)
            st.rerun()
        if no.button("Cancel"):
            st.session_state.pop(CONFIRM_DOC)
            st.rerun()
    if show_chunks:
        index = state.load_index(name)
        chunks = [n for doc_id in row["doc_ids"] for n in index.nodes_for_doc(doc_id)]
        st.dataframe(
            [{"#": number, "page": n.metadata.get("page_label", n.metadata.get("page", "")),
              "characters": len(n.text), "text": n.text} for number, n in enumerate(chunks, 1)],
            hide_index=True, width="stretch",
            column_config={"text": st.column_config.TextColumn("text", width="large")},
        )


def documents_tab(name: str) -> None:
    rows = state.index_documents(name)
    if not rows:
        st.info("This index holds no documents yet.")
        return
    st.dataframe(
        [{"file": r["file"], "documents": r["documents"], "chunks": r["chunks"],
          "characters": r["characters"], "indexed": r["indexed_at"]} for r in rows],
        hide_index=True, width="stretch",
    )
    by_key = {r["id_base"]: r for r in rows}
    key = st.selectbox("Document", list(by_key), format_func=lambda k: by_key[k]["file"])
    document_actions(name, key, by_key[key])
    summarise_document(name, key, by_key[key])


def corpus_tab(picture) -> None:
    if picture is None:
        st.info("Pictures appear once the index holds documents.")
        return
    left, right = st.columns(2)
    with left:
        st.markdown("**Chunk lengths** (tokens per chunk)")
        data = alt.Data(values=rows_of(picture.histogram, "tokens", "chunks"))
        st.altair_chart(alt.Chart(data).mark_bar().encode(
            x=alt.X("tokens:N", sort=None, title="tokens per chunk"),
            y=alt.Y("chunks:Q", title="chunks")), width="stretch")
    with right:
        st.markdown("**Documents by size** (tokens, largest 30)")
        data = alt.Data(values=rows_of(picture.documents, "document", "tokens", "chunks")[:30])
        st.altair_chart(alt.Chart(data).mark_bar().encode(
            y=alt.Y("document:N", sort="-x", title=None), x=alt.X("tokens:Q"),
            tooltip=["document:N", "tokens:Q", "chunks:Q"]), width="stretch")
    st.markdown(
        f"**Map of the chunks** ({picture.mapped_count} of {picture.chunk_count}): each dot is a "
        "chunk placed by its embedding (a 2-D projection), so chunks about similar things lie "
        "close together. Colours show the file."
    )
    data = alt.Data(values=rows_of(picture.embedding_map, "x", "y", "document", "preview"))
    st.altair_chart(alt.Chart(data).mark_circle(size=40, opacity=0.7).encode(
        x=alt.X("x:Q", title="component 1"), y=alt.Y("y:Q", title="component 2"),
        color=alt.Color("document:N", title="file"), tooltip=["document:N", "preview:N"],
    ).interactive(), width="stretch")


def manage_tab(name: str) -> None:
    new_name = st.text_input("New name", value=name)
    if st.button("Rename", disabled=new_name == name):
        state.workspace().rename_index(name, new_name)
        state.select_index(new_name)
        st.rerun()
    st.divider()
    sure = st.checkbox(f"I understand that deleting “{name}” removes its chunks and uploaded "
                       "files for good.")
    if st.button("Delete this index", type="primary", disabled=not sure):
        state.workspace().delete_index(name)
        state.select_index(None)
        st.rerun()


def main() -> None:
    shell.page_setup()
    st.title("Indexes")
    infos = state.list_indexes()
    if not infos:
        shell.no_index_yet("There is no index yet. Upload documents to create one.")
        return
    overview(infos)
    names = [i.name for i in infos]
    name = st.selectbox("Index", names, index=names.index(state.selected_index(names)))
    state.select_index(name)
    info = next(i for i in infos if i.name == name)
    picture = state.corpus_picture(name) if info.nodes else None
    summary(info)
    summarise_index(name, info.nodes)
    docs, corpus, manage = st.tabs(["Documents", "Corpus view", "Rename or delete"])
    with docs:
        documents_tab(name)
    with corpus:
        corpus_tab(picture)
    with manage:
        manage_tab(name)


with shell.friendly_errors():
    main()
