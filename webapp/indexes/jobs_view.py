"""Background jobs in the app: the sidebar list on every page, a session's results, stray uploads.

Jobs run in the server process (``state.jobs()``), not in a page's script run, so this module
only draws them. The progress of active jobs is a ``st.fragment`` that redraws itself every
``POLL_SECONDS`` while a job it shows is active; when one of them finishes, it reruns the whole
page, which then shows the changed index. With nothing running, the sidebar looks only every
``IDLE_POLL_SECONDS`` for a job another process started (``ragcore ingest`` in a terminal) and
reruns the page when one appears. Finished jobs' reports, with their page links, are drawn
outside the redrawn fragment.
"""

from __future__ import annotations

import copy
from typing import Any

import streamlit as st

from ragcore.errors import AccessDenied, WorkspaceError
from ragcore.present import format as fmt
from ragcore.workspace import permitted
from ragcore.workspace.team import job_resource
from ragcore.workspace.handle import saved
from ragcore.workspace.names import display_name
from webapp import state
from webapp.team import team_state

POLL_SECONDS = 2.0
IDLE_POLL_SECONDS = 10.0  # how soon a job started by another process shows up
FINISHED_SHOWN = 4  # finished jobs listed in the sidebar
SESSION_SHOWN = 3  # a session's newest jobs, on the Upload page
ICONS = {"done": ":material/check_circle:", "failed": ":material/error:",
         "cancelled": ":material/cancel:", "interrupted": ":material/pause_circle:"}


def _fragment(body: Any, every: float | None, *args: Any) -> None:
    """Run ``body(*args)`` as a fragment redrawn every ``every`` seconds (None: never)."""
    st.fragment(body, run_every=every)(*args)


def _rerun_if_finished(watched: tuple[str, ...], jobs: list[Any]) -> None:
    """A job drawn as active when the page ran is finished now: show the page anew."""
    active = {j.id for j in jobs if j.active}
    if any(job_id not in active for job_id in watched):
        st.rerun(scope="app")


# -- the sidebar: every job of the workspace ---------------------------------------------------


def sidebar_jobs(*, on_page: bool = False) -> None:
    """Active jobs with progress and Cancel, then the latest finished ones (every page);
    ``on_page``: the page counts this session's jobs (``session_results``), which the sidebar
    then names without a count of its own (two fragments redrawn apart showed two counts)."""
    team, user = team_state.current()
    watched = tuple(j.id for j in permitted.jobs_for(team, user, state.jobs().active()))
    here = frozenset(j.id for j in state.session_jobs()[:SESSION_SHOWN]) if on_page else frozenset()
    _fragment(_sidebar_body, POLL_SECONDS if watched else IDLE_POLL_SECONDS, watched, here)


def _sidebar_body(watched: tuple[str, ...], here: frozenset = frozenset()) -> None:
    runner, (team, user) = state.jobs(), team_state.current()
    jobs = permitted.jobs_for(team, user, runner.jobs())  # those of indexes they may see
    active, finished = sidebar_lists(jobs)
    _rerun_if_finished(watched, active)
    if any(j.id not in watched for j in active):  # new (another process's): poll it fast
        st.rerun(scope="app")
    _queued_jobs(team, user)
    if not jobs:
        return
    st.markdown("**Jobs**")
    for job in active:
        if job.id in here:
            st.caption(f"{job.title()}: its progress is on this page.")
        else:
            st.progress(min(1.0, max(0.0, job.fraction)), text=f"{job.title()}: {job.status()}")
        if job.origin != "app":
            st.caption(f"Started from the {job.origin} (process {job.pid}).")
        if not job.cancel_requested:  # a callback: it runs before the list is drawn again
            st.button("Cancel", key=f"cancel-{job.id}", on_click=_cancel, args=(job.id,),
                      disabled=not _may(job, "cancel"),
                      help="Stop after the current batch; everything saved so far stays in "
                           "the index.")
    for job in finished:
        st.caption(f"{ICONS.get(job.state, '')} {job.title()}: {short_outcome(job)}")
        if job.state == "interrupted" or job.state == "cancelled" and job.kind == "ingest":
            left, right = st.columns(2)
            if job.index_deleted:
                left.caption("Its index was deleted: nothing to resume.")
            elif left.button("Resume", key=f"resume-{job.id}", disabled=not _may(job, "resume"),
                           help="Index the files this job had not saved completely; a file "
                                "stopped mid-way goes on after its saved passages."):
                try:
                    note = permitted.resume_job(team, user, runner, state.workspace(), job.id)
                except (WorkspaceError, AccessDenied) as exc:  # its index was replaced: said
                    st.warning(str(exc))
                else:
                    state.note_job(note)
                    runner.forget(job.id)
                    st.rerun(scope="app")
            if right.button("Dismiss", key=f"dismiss-{job.id}", disabled=not _may(job, "delete")):
                if team is not None:
                    team.access.require(user, "delete", job_resource(job))
                runner.forget(job.id)
                st.rerun(scope="app")


def sidebar_lists(jobs: list[Any]) -> tuple[list[Any], list[Any]]:
    """The sidebar's active jobs and its latest finished ones, each as it was at one look."""
    seen = looked_at(jobs)
    return [j for j in seen if j.active], [j for j in seen if not j.active][:FINISHED_SHOWN]


def looked_at(jobs: list[Any]) -> list[Any]:
    """Copies of ``jobs`` to draw: a job of this process is the object its thread updates, so
    one that finished while a list was drawn was listed as running and as done, or twice as
    done (its progress bar saying "done"), until the next rerun (issue 66)."""
    return [copy.copy(job) for job in jobs]


def _queued_jobs(team: Any, user: Any) -> None:
    """Ingestion queued for ``ragcore worker`` processes (on any machine with the database):
    batches done of all, and the time left at the pace so far; the same on every server."""
    from ragcore.workspace.jobs.queued_ingest import job_progress

    workspace = state.workspace()
    if workspace.database is None:
        return
    visible = set(permitted.indexes_for(team, user, workspace))
    shown = [j for j in job_progress(workspace) if j["index"] in visible]
    under_way = [j for j in shown if j["queued"] or j["running"]]
    for job in (under_way or shown[:1]):
        left = job["queued"] + job["running"]
        eta = f", about {job['eta_seconds'] / 60:.0f} min left" \
            if left and job["eta_seconds"] is not None else ""
        name = display_name(workspace, job["index"])
        st.progress(job["done"] / max(job["batches"], 1),
                    text=f"Workers: {name}: {job['done']} of {job['batches']} batches{eta}")
        if job["failed"]:
            st.caption(f"{fmt.counted(job['failed'], 'batch', 'batches')} failed: "
                       f"{fmt.literal_markdown(job['errors'][0][1][:200])}")
        for file_name, reason in job["unreadable"][:3]:
            st.caption(f"{file_name} could not be read: {reason}")


def _may(job: Any, action: str) -> bool:
    team, user = team_state.current()
    return team is None or team.access.can(user, action, job_resource(job))


def _cancel(job_id: str) -> None:
    """Cancel's callback: the policy decides again (a write grant on the job's index)."""
    team, user = team_state.current()
    try:
        permitted.cancel_job(team, user, state.jobs(), job_id)
    except AccessDenied as exc:
        st.toast(str(exc))


def short_outcome(job: Any) -> str:
    """'done · 2 of 2 files new or changed, 340 passages', 'cancelled · ... passages kept'."""
    report = job.report or {}
    if job.state == "interrupted":
        return job.summary
    if job.state == "failed":
        return f"failed · {job.summary or job.error}"
    if not report:
        return f"{job.state} · {job.summary}" if job.summary else job.state
    files = len(report.get("files", []))
    text = (f"{job.state} · {report.get('indexed', 0)} of {files} "
            f"file{'' if files == 1 else 's'} new or changed, {report.get('chunks', 0):,} passages")
    if job.state == "cancelled":
        text += " kept"
    return text + (f", {report['failed']} failed" if report.get("failed") else "")


# -- the Upload page: this session's jobs ------------------------------------------------------


def session_results() -> None:
    """Progress of the jobs this session started (redrawn while they run), then the reports
    of those finished (drawn once per page run: their page links are never redrawn under a
    click)."""
    jobs = looked_at(state.session_jobs()[:SESSION_SHOWN])
    watched = tuple(j.id for j in jobs if j.active)
    if watched:
        _fragment(_session_progress, POLL_SECONDS, watched)
    for job in jobs:
        if job.active:
            continue
        if job.report is not None:
            show_report(job)
        elif job.state == "failed":
            st.error(f"{job.title()} failed: {fmt.literal_markdown(job.summary or job.error)}")


def _session_progress(watched: tuple[str, ...]) -> None:
    jobs = looked_at(state.session_jobs()[:SESSION_SHOWN])
    _rerun_if_finished(watched, jobs)
    for job in jobs:
        if job.id in watched:
            st.subheader(job.title())
            st.progress(min(1.0, max(0.0, job.fraction)), text=job.status())
            st.caption("It runs in the background: you can leave this page, close the tab or "
                       "work on another index meanwhile; the sidebar shows its progress.")


def show_report(job: Any) -> None:
    from ragcore.workspace.ingest import IngestReport

    report = IngestReport.from_dict(job.report)
    st.subheader(f"Result for index “{display_name(state.workspace(), report.index)}”")
    (st.warning if report.failed or report.cancelled else st.success)(report.summary())
    st.dataframe(fmt.report_rows(report), hide_index=True, width="stretch")
    cols = st.columns(3)
    cols[0].page_link("pages/query.py", label="Ask a question", icon=":material/search:")
    cols[1].page_link("pages/chat.py", label="Chat", icon=":material/chat:")
    cols[2].page_link("pages/indexes.py", label="See the index", icon=":material/folder_open:")


# -- uploads that never made it into the index -------------------------------------------------


def stray_uploads(name: str) -> None:
    """Offer to index again, or remove, uploads of ``name`` that no document comes from."""
    ws = state.workspace()
    if not ws.has_index(name) or not ws.upload_dir(name).is_dir():
        return
    indexed = {row["id_base"] for row in state.index_documents(name)} \
        if saved(ws.index_path(name)) else set()
    stray = state.jobs().stray_uploads(ws, name, indexed)
    if not stray:
        return
    shown = display_name(ws, name)  # as typed ("Contrats été"), not its folder name
    with st.expander(f"{fmt.counted(len(stray), 'uploaded file')} of “{shown}” "
                     f"{'is' if len(stray) == 1 else 'are'} not in the index"):
        st.caption("Their indexing failed, was cancelled or stopped with the app: "
                   + ", ".join(p.name for p in stray[:10]) + (" …" if len(stray) > 10 else ""))
        left, right = st.columns(2)
        team, user = team_state.current()
        if left.button("Index them again", key=f"retry-{name}"):
            state.note_job(permitted.start_ingest(team, user, state.jobs(), ws, name, stray))
            st.rerun()
        if right.button("Remove them", key=f"remove-{name}"):
            permitted.require_index(team, user, ws, name, "delete", kind="upload")
            for path in stray:
                path.unlink(missing_ok=True)
            st.rerun()
