"""Upload: add documents to a new or existing index, with progress and a per-file report."""

from pathlib import Path

import streamlit as st

from ragcore import app_format, appstate
from ragcore.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
from ragcore.readers import SUPPORTED_EXTENSIONS
from ragcore.safe_files import NAME_RULE

NEW_INDEX = "➕ Create a new index"


def main() -> None:
    appstate.sidebar_status()
    st.title("Upload documents")
    st.write(
        "Choose an index (a named collection of documents), add files, and press **Index**. "
        "Uploading a file again updates it instead of adding a copy."
    )

    ws = appstate.workspace()
    names = ws.index_names()
    options = [*names, NEW_INDEX]
    current = appstate.selected_index(names)
    choice = st.selectbox(
        "Index", options, index=options.index(current) if current else len(options) - 1
    )
    if choice == NEW_INDEX:
        name = st.text_input("Name of the new index", placeholder="e.g. contracts", help=NAME_RULE)
        record = None
    else:
        name = choice
        appstate.select_index(name)
        record = ws.record(name)

    if "uploader_round" not in st.session_state:
        st.session_state.uploader_round = 0
    files = st.file_uploader(
        "Documents",
        accept_multiple_files=True,
        type=sorted(ext.lstrip(".") for ext in SUPPORTED_EXTENSIONS),
        key=f"uploader_{st.session_state.uploader_round}",
        help="PDF, Word, text, Markdown, HTML, CSV, JSON and more; many at once.",
    )

    with st.expander("Advanced: how documents are split"):
        size_default = (record.chunk_size if record else None) or DEFAULT_CHUNK_SIZE
        overlap_default = (record.chunk_overlap if record else None)
        overlap_default = DEFAULT_CHUNK_OVERLAP if overlap_default is None else overlap_default
        chunk_size = st.number_input(
            "Chunk size (tokens per passage)", min_value=16, max_value=8192, value=size_default,
            help="Smaller passages give more precise sources; larger ones more context per passage.",
        )
        chunk_overlap = st.number_input(
            "Chunk overlap (tokens shared by neighbouring passages)",
            min_value=0, max_value=4096, value=overlap_default,
        )
        if record is not None:
            st.caption("New or changed files of this index are split with these settings.")

    label = f"Index {len(files)} file(s)" if files else "Index"
    if st.button(label, type="primary", disabled=not files or not name):
        overall = st.progress(0.0, text="Starting…")
        current_file = st.progress(0.0, text=" ")

        def on_progress(event):
            words = app_format.STAGE_WORDS.get(event.stage, event.stage)
            if event.stage == "saving":
                overall.progress(1.0, text="Saving the index…")
                return
            overall.progress(
                event.overall, text=f"Overall: file {event.file_number} of {event.file_count}"
            )
            current_file.progress(event.file_fraction, text=f"{Path(event.path).name}: {words}")

        with appstate.friendly_errors(), appstate.changing_workspace() as locked:
            report = appstate.ingest_uploads(
                locked,
                name,
                [(f.name, f.getvalue()) for f in files],
                chunk_size=int(chunk_size),
                chunk_overlap=int(chunk_overlap),
                progress=on_progress,
            )
            appstate.select_index(name)
            st.session_state[appstate.UPLOAD_REPORT_KEY] = report
            st.session_state.uploader_round += 1
            st.rerun()

    report = st.session_state.get(appstate.UPLOAD_REPORT_KEY)
    if report is not None:
        st.subheader(f"Result for index “{report.index}”")
        (st.warning if report.failed else st.success)(report.summary())
        st.dataframe(app_format.report_rows(report), hide_index=True, width="stretch")
        cols = st.columns(3)
        cols[0].page_link("pages/query.py", label="Ask a question", icon=":material/search:")
        cols[1].page_link("pages/chat.py", label="Chat", icon=":material/chat:")
        cols[2].page_link("pages/indexes.py", label="See the index", icon=":material/folder_open:")


with appstate.friendly_errors():
    main()
