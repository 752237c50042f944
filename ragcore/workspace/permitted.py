"""The workspace as one person may see and change it: the policy's check, then the change, then
the note in the team database, in one call each, for the app, the job runner and the CLI.

Each function takes ``team`` (``team.Team``; None in single-user mode, where everything is the
plain workspace's, unchanged) and the signed-in ``user``. Listings (``indexes_for``,
``chats_for``, ``jobs_for``) keep only what the person may list, so no name or count leaks.
``open_chat`` refuses a chat that is not theirs with the same words whether or not it exists,
so chat ids cannot be probed through a URL. ``create_index`` makes the person the owner of the
new index; ``delete_index`` forgets its shares and its chats' authors with it. Background jobs
(``jobs_runner.JobRunner``) are started, cancelled and resumed through ``start_ingest``,
``start_job``, ``cancel_job`` and ``resume_job``: an ingest into a new index makes the person its
owner, one into an existing index needs a write grant; a job id that does not exist is refused
to members with the same words as another person's job.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from .team.access import Resource, chat_resource, job_resource
from .team.accounts import User
from .chats import ChatSummary, SavedChat
from .names import chats_of, delete_index as delete_named_index, index_uid
from ..present.format import counted

if TYPE_CHECKING:
    from .jobs.journal import Job
    from .jobs.runner import JobRunner
    from .stats import IndexInfo
    from .team.team import Team
    from .workspace import Workspace


def index_resource(workspace: Workspace, name: str, kind: str = "index") -> Resource:
    """Index ``name`` (or its uploads, summary) as the policy sees it: by its uid ("" when it
    is missing: only admins may act, and the refusal says nothing of whether it exists)."""
    return Resource(kind, index_uid(workspace, name))


def require_index(team: Team | None, user: User, workspace: Workspace, name: str,
                  action: str, kind: str = "index") -> None:
    """Raise ``AccessDenied`` unless ``user`` may ``action`` index ``name`` (its ``kind``)."""
    if team is not None:
        team.access.require(user, action, index_resource(workspace, name, kind))


def indexes_for(team: Team | None, user: User, workspace: Workspace) -> list[str]:
    """The folders of the indexes ``user`` may list."""
    names = workspace.index_names()
    if team is None:
        return names
    return team.access.visible(user, names, lambda n: index_resource(workspace, n))


def chats_for(team: Team | None, user: User, workspace: Workspace, *,
              index: str | None = None) -> list[ChatSummary]:
    """The saved chats ``user`` may list (of ``index`` only, when given)."""
    chats = workspace.list_chats(index=index)
    if team is None:
        return chats
    return team.access.visible(user, chats, lambda c: chat_resource(c.id))


def jobs_for(team: Team | None, user: User, jobs: Iterable[Job]) -> list[Job]:
    """The background jobs ``user`` may list: those of indexes they can see."""
    jobs = list(jobs)
    return jobs if team is None else team.access.visible(user, jobs, job_resource)


def open_chat(team: Team | None, user: User, workspace: Workspace, chat_id: str,
              action: str = "open") -> SavedChat:
    """Chat ``chat_id`` if ``user`` may ``action`` it (e.g. from a ``?chat=`` URL)."""
    if team is not None:
        team.access.require(user, "open", chat_resource(chat_id))
    chat = workspace.load_chat(chat_id)
    if team is not None and action != "open":
        team.access.require(user, action, chat_resource(chat_id, chat.index_uid))
    return chat


def save_chat(team: Team | None, user: User, workspace: Workspace, chat: SavedChat) -> Path:
    """Save ``chat`` as ``user``'s: a new chat needs the right to chat with its index, a saved
    one must be theirs."""
    if team is None:
        return workspace.save_chat(chat)
    if workspace.has_chat(chat.id):
        team.access.require(user, "chat", chat_resource(chat.id, chat.index_uid))
    else:
        require_index(team, user, workspace, chat.index, "chat")
    path = workspace.save_chat(chat)
    team.chat_saved(user, chat.id)
    return path


def delete_chat(team: Team | None, user: User, workspace: Workspace, chat_id: str) -> None:
    if team is not None:
        team.access.require(user, "delete", chat_resource(chat_id))
    workspace.delete_chat(chat_id)
    if team is not None:
        team.chat_deleted(chat_id)


def create_index(team: Team | None, user: User, workspace: Workspace, name: str,
                 **options: Any) -> IndexInfo:
    """Make index ``name`` (``Workspace.create_index``'s options); ``user`` owns it."""
    info = workspace.create_index(name, **options)
    if team is not None:
        team.index_created(user, index_uid(workspace, name))
    return info


def delete_index(team: Team | None, user: User, workspace: Workspace, name: str) -> int:
    """Delete index ``name`` if ``user`` may (its owner or an admin): its files, chats and jobs
    as ``names.delete_index`` does, and its shares; returns how many chats went with it."""
    if team is None:
        return delete_named_index(workspace, name)
    uid = index_uid(workspace, name)
    team.access.require(user, "delete", Resource("index", uid))
    chats = [chat.id for chat in chats_of(workspace, name)]
    shown = workspace.record(name).display_name or name
    count = delete_named_index(workspace, name)
    for chat_id in chats:
        team.chat_deleted(chat_id)
    if uid:
        team.index_deleted(user, uid, shown)
    return count


def start_ingest(team: Team | None, user: User, runner: JobRunner, workspace: Workspace,
                 name: str, files: list[Any], **options: Any) -> Job:
    """Queue an ingest of ``files`` into index ``name`` as ``user``: a new index is made now and
    is theirs; an existing one needs a write grant. ``options`` go to ``JobRunner.ingest``."""
    if team is not None:
        if workspace.has_index(name):
            require_index(team, user, workspace, name, "ingest")
        else:
            chunking = {k: options[k] for k in ("chunk_size", "chunk_overlap") if k in options}
            create_index(team, user, workspace, name, **chunking)
        team.audit.record("upload", actor=user.name, target=index_uid(workspace, name),
                          detail=counted(len(files), "file"))
    return runner.ingest(workspace, name, files, **options)


def start_job(team: Team | None, user: User, runner: JobRunner, workspace: Workspace,
              kind: str, name: str, target: str) -> Job:
    """Queue a re-index (``kind`` "reindex") or a delete ("delete") of document ``target`` of
    index ``name``: both need a write grant."""
    if kind not in ("reindex", "delete"):
        raise ValueError(f"job kind {kind!r} is not 'reindex' or 'delete'")
    action = "ingest" if kind == "reindex" else "delete"
    require_index(team, user, workspace, name, action, kind="upload")
    if team is not None and kind == "delete":
        team.audit.record("delete", actor=user.name, target=index_uid(workspace, name),
                          detail=f"document {target}")
    return (runner.reindex if kind == "reindex" else runner.delete)(workspace, name, target)


def cancel_job(team: Team | None, user: User, runner: JobRunner, job_id: str) -> bool:
    """Ask job ``job_id`` to stop, if ``user`` may (a write grant on its index)."""
    _require_job(team, user, runner, job_id, "cancel")
    return runner.cancel(job_id)


def resume_job(team: Team | None, user: User, runner: JobRunner, workspace: Workspace,
               job_id: str) -> Job:
    """Submit again what job ``job_id`` had not done, if ``user`` may."""
    _require_job(team, user, runner, job_id, "resume")
    return runner.resume(workspace, job_id)


def _require_job(team: Team | None, user: User, runner: JobRunner, job_id: str,
                 action: str) -> None:
    if team is not None:
        job = runner.get(job_id)
        team.access.require(user, action, job_resource(job) if job else Resource("job"))
