"""Indexes: what each index holds, its documents and chunks, pictures of the corpus, its jobs,
management. Re-indexing and deleting a document run as background jobs (see the sidebar); the
corpus pictures are drawn lazily once per index version, never on the spot after a change."""

import altair as alt
import streamlit as st

from ragcore.present import format as fmt, friendly_date, legend_colours
from ragcore.workspace import permitted
from ragcore.workspace.names import (
    chats_of,
    clean_display,
    display_name,
    index_uid,
    rename_index,
    rename_problem,
)
from webapp.indexes.index_sharing import sharing_panel
from webapp.indexes.summaries import summarise_document, summarise_index
from webapp import shell, state
from webapp.indexes import chunk_view, jobs_view, pictures
from webapp.team import team_state
from webapp.session import Session, session

MANAGE = "Rename or delete"
QUICK_JOB_SECONDS = 5.0  # a delete usually takes well under a second: wait that long for it


def rows_of(columns: dict, *keys: str) -> list[dict]:
    """Chart columns (dict of lists) as records for altair."""
    return [dict(zip(keys, values)) for values in zip(*(columns[k] for k in keys))]


def overview(infos) -> None:
    """One row per index; the embedding model and where it is kept under Advanced."""
    more = shell.advanced_on()
    st.dataframe(
        [{"index": display_name(state.workspace(), i.name), "files": i.files,
          "pages and files read": i.documents, "passages": i.nodes,
          "size on disk": fmt.human_size(i.bytes_on_disk),
          **({"embedding model": i.embed_model, "kept in": i.store or "index folder"}
             if more else {}),
          "created": friendly_date(i.created), "updated": friendly_date(i.updated)}
         for i in infos],
        hide_index=True, width="stretch",
    )


def saved_chats(count: int) -> str:
    """'no saved chats', '1 saved chat', '3 saved chats'."""
    if not count:
        return "no saved chats"
    return f"{count} saved chat{'' if count == 1 else 's'}"


def read_as(row: dict) -> str:
    """What one file was read as, in a person's words: '59 pages' for a PDF (read page by
    page), 'the whole file' for a file read at once."""
    if row["file"].lower().endswith(".pdf"):
        return fmt.counted(row["documents"], "page")
    return "the whole file" if row["documents"] == 1 else fmt.counted(row["documents"], "part")


def files_read_as(rows: list[dict]) -> str:
    """'Read as 59 pages of 1 PDF and 1 other file' (issue 66: "60 documents (one per PDF
    page)" for one 59-page PDF and one text file)."""
    pdfs = [r for r in rows if r["file"].lower().endswith(".pdf")]
    others = [r for r in rows if r not in pdfs]
    said = []
    if pdfs:
        said.append(f"{fmt.counted(sum(r['documents'] for r in pdfs), 'page')} of "
                    f"{fmt.counted(len(pdfs), 'PDF')}")
    if others:
        parts = sum(r["documents"] for r in others)
        said.append(fmt.counted(len(others), "other file" if pdfs else "file")
                    + (f" in {parts} parts" if parts > len(others) else ""))
    return "Read as " + " and ".join(said) + "."


def summary(info) -> None:
    """The index's counts; its tokens, embedding model, passage size and store under Advanced."""
    more = shell.advanced_on()
    cols = st.columns(4 if more else 3)
    # More parts read than files only when a PDF was read page by page (or a file in parts).
    pages = (files_read_as(state.index_documents(info.name))
             if info.documents > info.files else None)
    cols[0].metric("Files", info.files, help=pages)
    cols[1].metric("Passages", info.nodes)
    if more:
        cols[-2].metric("Tokens", info.tokens or 0)
    cols[-1].metric("Size on disk", fmt.human_size(info.bytes_on_disk))
    dates = (f"Created {friendly_date(info.created) or '?'} · "
             f"updated {friendly_date(info.updated) or '?'}")
    if not more:
        st.caption(dates)
        return
    st.markdown(f"**Embedding model:** `{info.embed_model or 'unknown'}`")
    overlap = "default" if info.chunk_overlap is None else info.chunk_overlap
    st.caption(f"{dates} · passage size {info.chunk_size or 'default'} tokens, overlap "
               f"{overlap} · vectors in {info.store or 'the index folder'}")


def document_actions(name: str, key: str, row: dict) -> None:
    cols = st.columns(3)
    show_chunks = cols[0].toggle("View its passages")
    reader = not team_state.can_index(state.workspace(), name, "ingest", kind="upload")
    if cols[1].button("Re-index", help="Read the file again and index it anew.",
                      disabled=reader):
        team, user = team_state.current()
        job = permitted.start_job(team, user, state.jobs(), state.workspace(), "reindex", name,
                                  key)
        state.note_job(job)
        st.rerun()
    if cols[2].button("Delete…", disabled=reader):
        session.confirm_delete_doc = key
    if session.confirm_delete_doc == key:
        shown = fmt.markdown_text(display_name(state.workspace(), name))
        st.warning(f"Delete **{row['file']}** and its {row['chunks']} passages from “{shown}”?")
        yes, no = st.columns(2)
        if yes.button("Yes, delete it", type="primary"):
            runner, (team, user) = state.jobs(), team_state.current()
            job = permitted.start_job(team, user, runner, state.workspace(), "delete", name, key)
            state.note_job(job)
            runner.wait(job.id, timeout=QUICK_JOB_SECONDS)  # else the sidebar shows it going
            if job.state == "failed":
                session.index_job_error = f"{job.title()} failed: {job.summary}"
            elif job.state == "done":
                done = f"Deleted {fmt.markdown_text(row['file'])} from “{shown}”."
                session.index_change_done = done
            del session.confirm_delete_doc
            st.rerun()
        if no.button("Cancel"):
            del session.confirm_delete_doc
            st.rerun()
    if show_chunks:
        index = state.load_index(name)
        chunks = [n for doc_id in row["doc_ids"] for n in index.nodes_for_doc(doc_id)]
        chunk_view.show_chunks(chunks, key=key)


def documents_tab(name: str) -> None:
    rows = state.index_documents(name)
    if not rows:
        st.info("This index holds no documents yet.")
        return
    st.dataframe(
        [{"file": r["file"], "read as": read_as(r), "passages": r["chunks"],
          "characters": r["characters"], "indexed": friendly_date(r["indexed_at"]),
          "complete": not r.get("incomplete")} for r in rows],
        hide_index=True, width="stretch",
    )
    if any(r.get("incomplete") for r in rows):
        st.caption("A file not complete holds the passages saved before its indexing was "
                   "cancelled or stopped; upload it again (or Resume its job) to complete it "
                   "from there, or Re-index it to start it over.")
    by_key = {r["id_base"]: r for r in rows}
    key = st.selectbox("Document", list(by_key), format_func=lambda k: by_key[k]["file"])
    document_actions(name, key, by_key[key])
    summarise_document(name, key, by_key[key])


def corpus_tab(name: str, chunks: int) -> None:
    if not chunks:
        st.info("Pictures appear once the index holds documents.")
        return
    picture, earlier = pictures.corpus_picture(name, chunks=chunks)
    if picture is None:
        st.info("Drawing the pictures of this index in the background; open this view again "
                "in a moment.")
        return
    if earlier:
        st.caption("These pictures show the index before its latest change; the new ones are "
                   "being drawn in the background.")
    left, right = st.columns(2)
    with left:
        st.markdown("**Passage sizes** (how many passages have each size)")
        data = alt.Data(values=rows_of(picture.histogram, "tokens", "chunks"))
        st.altair_chart(alt.Chart(data).mark_bar().encode(
            x=alt.X("tokens:N", sort=None, title="size of a passage"),
            y=alt.Y("chunks:Q", title="passages")), width="stretch")
    with right:
        st.markdown("**Documents by size** (largest 30)")
        data = alt.Data(values=rows_of(picture.documents, "document", "tokens", "chunks")[:30])
        st.altair_chart(alt.Chart(data).mark_bar().encode(
            y=alt.Y("document:N", sort="-x", title=None), x=alt.X("tokens:Q", title="size"),
            tooltip=["document:N", alt.Tooltip("chunks:Q", title="passages")]),
            width="stretch")
    st.markdown(
        f"**Map of the passages** ({picture.mapped_count} of {picture.chunk_count}): each dot is "
        "a passage placed by its meaning, so passages about similar things lie close together. "
        "Colours show the file."
    )
    data = alt.Data(values=rows_of(picture.embedding_map, "x", "y", "document", "group",
                                   "preview"))
    domain, colours = legend_colours(picture.embedding_map["group"])
    legend = alt.Legend(orient="bottom", columns=2, labelLimit=0, symbolLimit=0)
    # The map's axes have no meaning of their own: named only for those who know the method.
    axes = ("component 1", "component 2") if shell.advanced_on() else (None, None)
    st.altair_chart(alt.Chart(data).mark_circle(size=40, opacity=0.7).encode(
        x=alt.X("x:Q", title=axes[0], axis=alt.Axis(labels=bool(axes[0]))),
        y=alt.Y("y:Q", title=axes[1], axis=alt.Axis(labels=bool(axes[1]))),
        color=alt.Color("group:N", title="file", legend=legend,
                        scale=alt.Scale(domain=domain, range=colours)),
        tooltip=["document:N", "preview:N"],
    ).interactive(), width="stretch")


def jobs_tab(name: str) -> None:
    """Every job on this index the journal keeps: what happened, when, how long."""
    jobs = state.jobs().jobs(name)
    if not jobs:
        st.info("No upload, re-index or delete has run on this index yet.")
        return
    st.table([{"job": j.title(), "state": j.state,
               "outcome": jobs_view.short_outcome(j) if not j.active else j.status(),
               "started": friendly_date(j.started or j.created), "took": f"{j.seconds:.1f} s"}
              for j in jobs])


def rename_form(name: str) -> None:
    """Rename by the name people would type; the button waits, with the reason, for a usable
    name (and for the index's jobs to finish)."""
    ws = state.workspace()
    shown = display_name(ws, name)
    typed = st.text_input("New name", value=shown, key=f"rename-{name}",
                          help="Any name: spaces and accents are fine.")
    problem = rename_problem(ws, name, typed)
    busy = state.jobs().active(name)
    if busy:
        problem = f"{busy[0].title()} is running: rename the index when it is finished."
    elif clean_display(typed) == shown:
        problem = "Type the new name above."
    if problem:
        st.caption(f":material/info: {problem}")
    if st.button("Rename", disabled=problem is not None):
        team_state.require_index(ws, name, "rename")
        state.select_index(rename_index(ws, name, typed))
        session.index_change_done = (f"Renamed “{fmt.markdown_text(shown)}” to "
                                     f"“{fmt.markdown_text(clean_display(typed))}”: its "
                                     "chats, jobs and files stay with it.")
        st.rerun()


def manage_tab(name: str) -> None:
    """Rename (write), delete (owner), sharing (team mode): only what the person may do."""
    ws, (team, user) = state.workspace(), team_state.current()
    if team is not None:
        sharing_panel(team, user, index_uid(ws, name), display_name(ws, name))
        st.divider()
    if team_state.can_index(ws, name, "rename"):
        rename_form(name)
        st.divider()
    if not team_state.can_index(ws, name, "delete"):
        st.caption("Only the index's owner or an admin may delete it.")
        return
    shown = display_name(state.workspace(), name)
    chats = len(chats_of(state.workspace(), name))
    sure = st.checkbox(f"I understand that deleting “{shown}” removes its passages, uploaded "
                       f"files and {saved_chats(chats)} for good.")
    busy = state.jobs().active(name)
    if busy:  # deleting would wait for the job's write lock, the page frozen meanwhile
        st.caption(f":material/info: {busy[0].title()} is running: cancel it (in the sidebar) "
                   "or let it finish, then delete the index.")
    if st.button("Delete this index", type="primary", disabled=not sure or bool(busy)):
        team, user = team_state.current()
        chats = permitted.delete_index(team, user, state.workspace(), name)
        state.select_index(None)
        session.index_change_done = (f"Deleted the index “{fmt.markdown_text(shown)}”"
                                     + (f" and its {saved_chats(chats)}." if chats else "."))
        st.rerun()


def main() -> None:
    shell.page_setup()
    st.title("Indexes")
    if done := session.take(Session.index_change_done):
        st.success(done)
    infos = state.list_indexes()
    if not infos:
        shell.no_index_yet("There is no index yet. Upload documents to create one.")
        return
    overview(infos)
    names = [i.name for i in infos]
    name = st.selectbox("Index", names, index=names.index(state.selected_index(names)),
                        format_func=lambda n: display_name(state.workspace(), n))
    state.select_index(name)
    info = next(i for i in infos if i.name == name)
    summary(info)
    summarise_index(name, info.nodes)
    if failed := session.take(Session.index_job_error):
        st.error(fmt.literal_markdown(failed))
    docs, corpus, jobs, manage = st.tabs(["Documents", "Pictures", "Jobs",
                                          MANAGE if team_state.current()[0] is None
                                          else "Sharing, rename or delete"])
    with docs:
        documents_tab(name)
    with corpus:
        corpus_tab(name, info.nodes)
    with jobs:
        jobs_tab(name)
    with manage:
        manage_tab(name)


with shell.friendly_errors():
    main()
