"""Upload: add documents to a new or existing index as a background job; its progress, then a
per-file report (the job goes on if the person leaves the page or closes the tab). Before it
starts, the page says how long it will take on this computer, and asks to confirm a long one."""

import logging

import streamlit as st

from ragcore.stores.locations import parse_location
from ragcore.workspace import permitted
from webapp import shell, state
from webapp.indexes import jobs_view, store_choice
from webapp.team import team_state
from webapp.indexes import index_names
from webapp.session import Widget, session
from ragcore.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE

logger = logging.getLogger(__name__)

NEW_INDEX = "New index…"
CONFIRM_SECONDS = 600  # an upload estimated to take longer asks to be confirmed


def pick_index(ws):
    """The chosen index name (or the typed new name) and its workspace record (None if new)."""
    names = team_state.listed(ws, ws.index_names(), action="ingest")  # those they may add to
    options = [*names, NEW_INDEX]
    current = state.selected_index(names)
    choice = st.selectbox("Index", options,
                          index=options.index(current) if current else len(options) - 1,
                          format_func=index_names.shown_name(ws))
    if choice == NEW_INDEX:
        name = index_names.new_index_name(ws)  # "" while the typed name cannot be used
        session.new_index_store = (store_choice.pick_store() if shell.advanced_on()
                                   else store_choice.default_location())
        return name, None
    state.select_index(choice)
    return choice, ws.record(choice)


def chunking_choices(record) -> tuple[int, int]:
    with st.expander("Advanced: how documents are split"):
        size = (record.chunk_size if record else None) or DEFAULT_CHUNK_SIZE
        overlap = record.chunk_overlap if record else None
        chunk_size = st.number_input(
            "Passage size (tokens per passage)", min_value=16, max_value=8192, value=size,
            help="Smaller passages give more precise sources; larger ones more context each.",
        )
        chunk_overlap = st.number_input(
            "Passage overlap (tokens shared by neighbouring passages)", min_value=0,
            max_value=4096, value=DEFAULT_CHUNK_OVERLAP if overlap is None else overlap,
        )
        if record is not None:
            st.caption("New or changed files of this index are split with these settings.")
    return int(chunk_size), int(chunk_overlap)


def forecast(name, files, chunk_size: int, chunk_overlap: int):
    """How long indexing ``files`` takes on this computer (``estimate.forecast``), once per
    choice of files and chunking; None when it cannot be told (no name yet, an error)."""
    from ragcore.workspace.jobs import SAMPLE_BYTES
    from ragcore.workspace.jobs import forecast as count

    if not files or not name:
        return None
    key = (name, tuple((f.name, f.size) for f in files), chunk_size, chunk_overlap)
    kept = session.upload_forecast
    if kept is not None and kept[0] == key:
        return kept[1]
    try:
        with st.spinner("Estimating how long this takes on this computer…"):
            plan = count(state.workspace(), name,
                         [(f.name, f.size, f.getvalue()[:SAMPLE_BYTES]) for f in files],
                         chunk_size=chunk_size, chunk_overlap=chunk_overlap)
    except Exception as exc:  # noqa: BLE001 - the upload works without an estimate
        logger.info("no time estimate for the upload: %s", exc)
        plan = None
    session.upload_forecast = (key, plan)
    return plan


def waiting_for(files, name: str) -> str:
    """Why the Index button cannot start yet ("" when it can)."""
    if not name:  # a name typed but not usable is told why under its box
        named = "Choose a usable name" if session.widget(Widget.NEW_INDEX_NAME, "").strip() \
            else "Name the index"
        return f"{named} and add files to start." if not files else f"{named} to start."
    return "" if files else "Add files to start."


def start_button(files, name, plan) -> bool:
    """The Index button; above ``CONFIRM_SECONDS`` of work it asks first ("Start anyway")."""
    count = len(files or ())
    label = f"Index {count} file{'' if count == 1 else 's'}" if count else "Index"
    asked = session.upload_confirm
    if plan is not None and asked == (session.upload_forecast or (None,))[0]:
        st.warning(f"Indexing these files takes **{plan.describe()}**. It runs in the "
                   "background (you can leave this page, and Cancel it in the sidebar; what "
                   "is done by then is kept). Start it?")
        left, right = st.columns(2)
        if right.button("Cancel", key="upload-cancel"):
            del session.upload_confirm
            st.rerun()
        return left.button("Start anyway", type="primary", key="upload-start-anyway")
    waiting = waiting_for(files, name)
    if not st.button(label, type="primary", disabled=bool(waiting)):
        if waiting:  # a greyed button says why
            st.caption(waiting)
        return False
    if plan is not None and plan.seconds > CONFIRM_SECONDS:
        session.upload_confirm = session.upload_forecast[0]
        st.rerun()
    return True


def create_index(name: str, chunk_size: int, chunk_overlap: int) -> None:
    """Make the new index ``name`` (over the chosen store); its maker owns it in team mode."""
    ws, (team, user) = state.workspace(), team_state.current()
    if ws.has_index(name):  # made meanwhile by someone else: adding to it needs a write grant
        team_state.require_index(ws, name, "ingest")
        return
    location = session.new_index_store
    if location and location != "database":
        parse_location(location)  # a typo is reported before anything is made
    permitted.create_index(team, user, ws, name, chunk_size=chunk_size,
                           chunk_overlap=chunk_overlap, exist_ok=True,
                           **({"store": location} if location else {}))


def main() -> None:
    shell.page_setup(jobs_on_page=True)  # one count of an upload's progress: the page's
    st.title("Upload documents")
    st.write("Choose an index (a named collection of documents), add files, and press "
             "**Index**. Uploading a file again updates it instead of adding a copy.")
    name, record = pick_index(state.workspace())
    files = st.file_uploader(
        "Documents", accept_multiple_files=True,
        type=None,  # any file: text of any extension is read, a binary one refused with why
        key=f"uploader_{session.uploader_round}",
        help="PDF, Word, PowerPoint, Excel, EPUB, e-mail, HTML, CSV, JSON, Markdown and any "
             "text file; many at once.",
    )
    chunk_size, chunk_overlap = chunking_choices(record)
    plan = forecast(name, files, chunk_size, chunk_overlap)
    if plan is not None:
        st.caption(f"Indexing takes {plan.describe()}.")
    if start_button(files, name, plan):
        del session.upload_confirm
        with shell.friendly_errors():
            if record is None:  # created now, its maker the owner: the typed name is saved
                create_index(name, chunk_size, chunk_overlap)  # before the job runs
            index_names.remember_display_name(state.workspace(), name)
            state.submit_upload(
                state.workspace(), name, [(f.name, f.getvalue()) for f in files],
                chunk_size=chunk_size, chunk_overlap=chunk_overlap,
            )
            state.select_index(name)
            session.uploader_round += 1
            st.rerun()
    jobs_view.session_results()
    if name and record is not None:
        jobs_view.stray_uploads(name)


with shell.friendly_errors():
    main()
