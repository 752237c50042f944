"""Files dropped into the conversation: indexed into the chat's index as a background job, their
progress shown inline where they were dropped.

``drop_files`` stores the files and queues their ingestion (``state.submit_upload``: the same job
as the Upload page's) and notes the job in the chat's settings (``DROPS_SETTING``) with the
position in the conversation it was dropped at, so a reopened chat shows it in place.
``render_drop`` draws one drop: a progress bar redrawn every ``POLL_SECONDS`` while its job
runs (the whole page reruns once it ends, so the next question sees the new files), then the
job's outcome.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from webapp import state
from webapp.team import team_state
from webapp.indexes.jobs_view import short_outcome

DROPS_SETTING = "dropped_files"
POLL_SECONDS = 1.5


def drop_files(ws: Any, chat: Any, files: list[Any]) -> Any:
    """Queue ``files`` (Streamlit uploads) for indexing into the chat's index; returns the job."""
    uploads = [(f.name, f.getvalue()) for f in files]
    job = state.submit_upload(ws, chat.index, uploads, chunk_size=None, chunk_overlap=None)
    drop = {"job": job.id, "files": [name for name, _ in uploads], "at": len(chat.messages)}
    chat.settings.setdefault(DROPS_SETTING, []).append(drop)
    if chat.messages:
        team_state.save_chat(ws, chat)
    return job


def drops_at(chat: Any, position: int) -> list[dict]:
    """The drops made when the conversation had ``position`` messages."""
    return [d for d in chat.settings.get(DROPS_SETTING, []) if d.get("at") == position]


def indexing(chat: Any) -> bool:
    """Whether a file dropped into this chat is still being indexed."""
    runner = state.jobs()
    found = (runner.get(d["job"]) for d in chat.settings.get(DROPS_SETTING, []))
    return any(job is not None and job.active for job in found)


def render_drop(drop: dict) -> None:
    """One drop in the conversation: its files and the progress (or outcome) of its job."""
    with st.chat_message("user", avatar=":material/attach_file:"):
        st.markdown("Added " + ", ".join(f"**{name}**" for name in drop["files"]))
        job = state.jobs().get(drop["job"])
        if job is None:
            st.caption("Indexed earlier (the job is no longer listed).")
        elif job.active:
            st.fragment(_progress, run_every=POLL_SECONDS)(drop["job"])
        else:
            st.caption(f"Indexing {short_outcome(job)}")


def _progress(job_id: str) -> None:
    job = state.jobs().get(job_id)
    if job is None or not job.active:
        st.rerun(scope="app")  # the files are in: show the page with the index they changed
    st.progress(min(1.0, max(0.0, job.fraction)), text=f"Indexing: {job.status().removeprefix('indexing ')}")
