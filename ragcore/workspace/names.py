"""Index names as people type them ("Dossiers été 2024") over folders that never change.

An index lives in a folder whose name follows ``files.NAME_RULE`` (ASCII letters, digits, '-'
and '_'), so it is safe on every file system and in URLs. The folder is the index's identity
inside the workspace: chats, jobs, uploads (``uploads/<folder>/``) and the "unchanged" checks of
ingestion refer to it, so it is chosen once, when the index is made, and never moves. People
name things with spaces and accents: ``folder_name`` turns a typed name into a folder name
(accents dropped, other runs of characters made '-'; a name in a script with no Latin letters,
"日本語", gets ``index-<hash>``) and ``free_folder`` adds -2, -3 ... when that folder is taken
(by an index renamed since). The typed name is kept in the index's record
(``IndexRecord.display_name``) and shown wherever the index is listed (``display_name``);
``rename_index`` changes only that. Two indexes may not share a shown name (any case):
``name_problem`` says in plain words why a typed name cannot be used (or None).

The record's ``uid`` tells an index from a later one made in the folder of a deleted one: chats
and jobs keep it beside the folder (``index_uid``), and ``index_gone`` says whether what they
refer to was deleted (or replaced). ``delete_index`` deletes an index with its saved chats and
marks its jobs, so none is resumed (``resume``). ``resolve_index`` finds the folder of a name as
typed on the command line.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import replace
from typing import Any, Iterable

from ..errors import WorkspaceError
from .files import NAME_PATTERN

MAX_DISPLAY_CHARS = 80
MAX_FOLDER_CHARS = 64
_OTHER = re.compile(r"[^A-Za-z0-9_-]+")


def folder_name(display: str) -> str:
    """The folder name for ``display`` ("" when it has no letter or digit to keep)."""
    ascii_text = unicodedata.normalize("NFKD", str(display)).encode("ascii", "ignore").decode()
    slug = _OTHER.sub("-", ascii_text.strip())
    slug = re.sub(r"-{2,}", "-", slug).strip("-_")[:MAX_FOLDER_CHARS].rstrip("-_")
    if NAME_PATTERN.match(slug):
        return slug
    if any(ch.isalnum() for ch in str(display)):  # letters of a script with no ASCII form
        digest = hashlib.blake2b(clean_display(display).casefold().encode(), digest_size=5)
        return f"index-{digest.hexdigest()}"
    return ""


def free_folder(workspace: Any, display: str) -> str:
    """The folder a new index named ``display`` gets: its ``folder_name``, with -2, -3 ...
    added while that folder holds another index ("" when the name has nothing to keep)."""
    base = folder_name(display)
    if not base:
        return ""
    taken = {name.lower() for name in workspace.index_names()}
    folder, number = base, 1
    while folder.lower() in taken:
        number += 1
        folder = f"{base[:MAX_FOLDER_CHARS - 1 - len(str(number))]}-{number}"
    return folder


def folder_of(typed: str, folder: str) -> bool:
    """Whether ``folder`` is one ``free_folder`` gives the name ``typed``."""
    base = folder_name(typed)
    stem, _, number = folder.rpartition("-")
    return bool(base) and (folder == base or number.isdigit()
                           and stem == base[:MAX_FOLDER_CHARS - 1 - len(number)])


def clean_display(display: str) -> str:
    """The typed name with its spaces collapsed."""
    return " ".join(str(display).split())


def name_problem(display: str, existing: Iterable[str]) -> str | None:
    """Why ``display`` cannot name a new index (None when it can); ``existing`` are the shown
    names of the other indexes."""
    display = clean_display(display)
    if not display:
        return "Type a name for the new index."
    if len(display) > MAX_DISPLAY_CHARS:
        return f"The name is {len(display)} characters long: keep it to {MAX_DISPLAY_CHARS}."
    if not folder_name(display):
        return "The name needs at least one letter or digit."
    if display.casefold() in {clean_display(name).casefold() for name in existing}:
        return (f"An index named “{display}” already exists: choose it in the list above, "
                "or type another name.")
    return None


def shown_names(workspace: Any, *, but: str = "") -> list[str]:
    """The shown names of the workspace's indexes (all but the folder ``but``)."""
    return [display_name(workspace, n) for n in workspace.index_names() if n != but]


def display_name(workspace: Any, name: str) -> str:
    """How index ``name`` is shown: the name typed when it was made, else its folder name."""
    try:
        return workspace.record(name).display_name or name
    except WorkspaceError:  # a missing or damaged record still lists by its folder name
        return name


def set_display_name(workspace: Any, name: str, display: str) -> None:
    """Keep ``display`` as the shown name of index ``name`` (already created)."""
    display = clean_display(display)
    record = workspace.record(name)
    if display and display != record.display_name:
        workspace.save_record(name, replace(record, display_name=display))


def rename_problem(workspace: Any, name: str, typed: str) -> str | None:
    """Why index ``name`` cannot be renamed to ``typed`` (None when it can)."""
    display = clean_display(typed)
    if display == display_name(workspace, name):
        return "That is its name already."
    problem = name_problem(display, shown_names(workspace, but=name))
    return problem.replace("the new index", "the index") if problem else None


def rename_index(workspace: Any, name: str, typed: str) -> str:
    """Give index ``name`` the shown name ``typed``; returns its folder, which never changes
    (its chats, jobs and uploads keep referring to it). The journal's jobs of the index are
    titled with the new name. Refused while a job runs on the index."""
    from .jobs.journal_pg import open_journal

    problem = rename_problem(workspace, name, typed)
    if problem:
        raise WorkspaceError(f"cannot rename index {name!r} to {typed!r}: {problem}")
    journal = open_journal(workspace.root)
    jobs = [j for j in journal.all() if j.index == name and not j.index_deleted]
    if any(j.active and journal.owner_alive(j) for j in jobs):
        raise WorkspaceError(f"a job is running on index {name!r}: rename it when the job is "
                             "finished, or cancel the job first")
    display = clean_display(typed)
    workspace.save_record(name, replace(workspace.record(name), display_name=display))
    for job in jobs:
        journal.save(replace(job, index_display=display))
    return name


def index_uid(workspace: Any, name: str) -> str:
    """The uid of index ``name`` ("" when it has none or is missing)."""
    try:
        return workspace.record(name).uid if workspace.has_index(name) else ""
    except WorkspaceError:
        return ""


def index_gone(workspace: Any, name: str, uid: str = "") -> bool:
    """Whether the index a chat or job refers to (folder ``name``, ``uid`` when known) was
    deleted: its folder holds no index, or a later one (another uid)."""
    if not workspace.has_index(name):
        return True
    current = index_uid(workspace, name)
    return bool(uid and current and uid != current)


def existing_index(workspace: Any, typed: str) -> str | None:
    """The folder of the index named ``typed``: its shown name (any case) first, else its
    folder; None when neither. (After "Alpha" was renamed "Delta" and a new "Alpha" made in
    folder Alpha-2, "Alpha" is the new one, not the folder Alpha.)"""
    wanted = clean_display(typed).casefold()
    for name in workspace.index_names():
        if display_name(workspace, name).casefold() == wanted:
            return name
    if NAME_PATTERN.match(typed) and workspace.has_index(typed):
        return typed
    return None


def resolve_index(workspace: Any, typed: str) -> str:
    """The folder of the index named ``typed`` (its folder or shown name, any case), else the
    folder a new index of that name gets."""
    found = existing_index(workspace, typed)
    if found is not None:
        return found
    folder = free_folder(workspace, typed)
    if not folder:
        raise WorkspaceError(f"index name {typed!r}: {name_problem(typed, [])}")
    return folder


def require_same(workspace: Any, name: str, uid: str, shown: str = "") -> None:
    """Refuse (with the reason) to work on index ``name`` for a job of index ``uid`` (shown
    as ``shown``) when that index was deleted: nothing may make a deleted index again."""
    if not index_gone(workspace, name, uid):
        return
    shown = shown or name
    newer = (f" (“{display_name(workspace, name)}” is a newer index)"
             if workspace.has_index(name) else "")
    raise WorkspaceError(f"the index “{shown}” was deleted{newer}: nothing to resume; upload "
                         "the files into an index again")


def chats_of(workspace: Any, name: str) -> list[Any]:
    """The saved chats of index ``name`` (deleted with it)."""
    return workspace.chats_of(name, index_uid(workspace, name))


def delete_index(workspace: Any, name: str) -> int:
    """Delete index ``name`` with its uploads and saved chats (``Workspace.delete_index``) and
    its file summaries, and mark its jobs in the journal as of a deleted index; returns how
    many chats were deleted."""
    from .jobs.journal_pg import open_journal
    from .summaries import open_summary_cache

    uid = index_uid(workspace, name)
    chats = workspace.delete_index(name)
    if uid:  # summaries are kept by index uid (``summaries``)
        open_summary_cache(workspace.root).forget(uid)
    journal = open_journal(workspace.root)
    for job in journal.all():
        if job.index == name and job.index_uid in ("", uid) and not job.index_deleted:
            job.index_deleted = True
            journal.save(job)
    return chats
