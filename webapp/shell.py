"""The frame every page of the app shares: navigation, the sidebar status, readable errors.

``app.py`` calls ``navigation()``; the Query and Chat pages share the ``search_by()`` choice;
each page starts with ``page_setup()`` (which also draws the background jobs in the sidebar)
and runs its body
inside ``friendly_errors()``, so no page ever shows a traceback. Session state and cached
objects are in ``webapp.state``; the wording of errors in ``ragcore.present.explain``.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import streamlit as st

from webapp import idle_writer, preferences, state
from webapp.indexes import jobs_view
from ragcore.present import describe_backend, explain_error, literal_markdown
from webapp.query_options import SEARCH_BY
from webapp.session import session


def show_error(exc: BaseException) -> None:
    """A readable error box: what happened and what to do (the traceback goes to the log)."""
    explanation = explain_error(exc)
    text = literal_markdown(explanation.message)  # a path's "__init__" is not bold "init"
    if explanation.action:
        text += f"\n\n**What to do:** {explanation.action}"
    st.error(text, icon=":material/error:")


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Show any error raised inside the block with ``show_error`` instead of a traceback."""
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - every error becomes a readable message
        show_error(exc)


# (page file relative to app.py, title, icon, URL path); the first is the start page
PAGES = (
    ("pages/home.py", "Start", ":material/home:", "start"),
    ("pages/upload.py", "Upload", ":material/upload_file:", "upload"),
    ("pages/indexes.py", "Indexes", ":material/folder_open:", "indexes"),
    ("pages/query.py", "Query", ":material/search:", "query"),
    ("pages/chat.py", "Chat", ":material/chat:", "chat"),
    ("pages/settings.py", "Settings", ":material/settings:", "settings"),
)
# team mode: the admins' page (accounts, audit log), listed only for admins
ADMIN_PAGE = ("pages/team.py", "Team", ":material/group:", "team")


def page_config() -> None:
    """The browser tab's title and icon, the wide layout (also for the sign-in gate)."""
    st.set_page_config(page_title="ragcore · chat with your documents",
                       page_icon=":material/menu_book:",
                       layout="wide", initial_sidebar_state="expanded")


def navigation(*, admin: bool = False) -> Any:
    """Set up the browser tab and the sidebar's page list (with the Team page for an admin in
    team mode); returns the page to run."""
    page_config()
    listed = PAGES + (ADMIN_PAGE,) if admin else PAGES
    pages = [
        st.Page(path, title=title, icon=icon, url_path=url, default=number == 0)
        for number, (path, title, icon, url) in enumerate(listed)
    ]
    page = st.navigation(pages)
    session.navigation_ready = True
    return page


def page_setup(*, jobs_on_page: bool = False) -> None:
    """Every page's first call: make sure the navigation is ours, then the sidebar status
    (``jobs_on_page``: the page shows this session's jobs' progress, so the sidebar does not
    count them a second time).

    On a server's very first script run, Streamlit's legacy pages/-folder mode runs a page
    requested by URL without app.py; registering the navigation here switches every later run
    to app.py's navigation, and the immediate rerun shows the page that way before anyone
    types into it (its widgets would otherwise be reset by the switch).
    """
    if not session.navigation_ready:
        navigation()
        st.rerun()
    sidebar_status(jobs_on_page=jobs_on_page)


def sidebar_status(*, jobs_on_page: bool = False) -> None:
    """The active answering model (the packaged one's name under Advanced), the workspace
    folder (under Advanced) and the background jobs, in the sidebar of every page (the jobs
    redraw themselves while one runs: ``webapp.indexes.jobs_view``)."""
    with st.sidebar:
        try:
            llm = state.ready_llm()  # never waits: the page draws while the model is looked for
            st.caption(f"Answering: {describe_backend(llm, advanced=advanced_on())}"
                       if llm is not None
                       else f"Answering: {state.LOOKING[0].lower()}{state.LOOKING[1:]}")
            idle_writer.keep_writing(state.workspace_root(), llm)  # summaries while idle
        except Exception as exc:  # noqa: BLE001 - the page itself shows the full explanation
            st.caption("Answering: not available. "
                       f"{literal_markdown(explain_error(exc).message)}")
        if not state.llm_found():
            redraw_when_llm_found()
        if advanced_on():  # a folder's path is no one's business but an operator's
            st.caption(f"Workspace: `{state.workspace_root()}`")
        try:
            jobs_view.sidebar_jobs(on_page=jobs_on_page)
        except Exception as exc:  # noqa: BLE001 - a broken journal must not hide the page
            st.caption("Jobs cannot be listed: "
                       f"{literal_markdown(explain_error(exc).message)}")


def advanced_on() -> bool:
    """Whether Advanced is on in this session (the workspace's saved choice until the switch,
    ``webapp.settings.advanced``, is used): every page's sidebar reads it before its switch."""
    if session.advanced_choice is None:  # off for a new workspace or an unreadable file
        saved = preferences.load(state.workspace_root()).get("advanced")
        session.advanced_choice = bool(saved)
    return bool(session.advanced_choice)


@st.fragment(run_every=1.0)
def redraw_when_llm_found() -> None:
    """While the language model is looked for in the background: check every second, and draw
    the page again once it is found (the notices that name it follow)."""
    if state.llm_found():
        st.rerun(scope="app")


def looking_notice() -> None:
    """Where answers will come, while the language model is still looked for: that a question
    can be asked already, and its answer waits for the model."""
    if not state.llm_found():
        st.caption(f"{state.LOOKING} You can ask already: the answer starts once it is found.")


def fallback_note() -> None:
    """Say why answers are quoted (the packaged model could not load), once per session: on
    the Start page or under the first answer, whichever comes first."""
    from ragcore.llms import fallback_reason

    reason = fallback_reason()
    if reason and not session.fallback_said:
        session.fallback_said = True
        st.warning(reason, icon=":material/info:")


def no_index_yet(text: str) -> None:
    """The notice a page shows instead of its body while the workspace has no index."""
    st.info(text)
    st.page_link("pages/upload.py", label="Upload documents", icon=":material/upload_file:")


def search_by(*, key: str | None = None) -> str:
    """The "Search by" choice (meaning, keywords, both) and its explanation; the retrieval mode."""
    mode = st.selectbox(
        "Search by", list(SEARCH_BY), format_func=lambda m: SEARCH_BY[m][0], key=key,
        help="\n\n".join(f"**{label}**: {text}" for label, text in SEARCH_BY.values()),
    )
    st.caption(SEARCH_BY[mode][1])
    return mode


def in_columns(items: list[Any], per_row: int) -> Iterator[Any]:
    """Each item, drawn inside its own column, ``per_row`` columns to a row (side-by-side
    comparisons of modes or retrievers)."""
    for start in range(0, len(items), per_row):
        row = items[start : start + per_row]
        for column, item in zip(st.columns(len(row)), row):
            with column:
                yield item
