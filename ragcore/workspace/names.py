"""Index names as people type them ("Dossiers été 2024") over safe folder names.

An index lives in a folder whose name follows ``files.NAME_RULE`` (ASCII letters, digits, '-'
and '_'), so it is safe on every file system and in URLs. People name things with spaces and
accents: ``folder_name`` turns such a display name into a folder name (accents dropped, other
runs of characters made '-'; a name in a script with no Latin letters, "日本語", gets
``index-<hash>``), ``name_problem`` says in plain words why a typed name cannot be used (or
None), and the display name is kept in the index's record (``IndexRecord.display_name``),
shown wherever the index is listed (``display_name``). ``rename_index`` renames by a typed
name (moving the folder only when its safe name changes); ``resolve_index`` finds the folder
of a name as typed on the command line.
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


def clean_display(display: str) -> str:
    """The typed name with its spaces collapsed."""
    return " ".join(str(display).split())


def name_problem(display: str, existing: Iterable[str]) -> str | None:
    """Why ``display`` cannot name a new index (None when it can)."""
    display = clean_display(display)
    if not display:
        return "Type a name for the new index."
    if len(display) > MAX_DISPLAY_CHARS:
        return f"The name is {len(display)} characters long: keep it to {MAX_DISPLAY_CHARS}."
    folder = folder_name(display)
    if not folder:
        return "The name needs at least one letter or digit."
    taken = {name.lower() for name in existing}
    if folder.lower() in taken:
        return (f"An index named “{display}” (folder {folder}) already exists: choose it in "
                "the list above, or type another name.")
    return None


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
    if folder_name(display).lower() == name.lower():  # only the shown name changes
        return name_problem(display, [])
    problem = name_problem(display, [n for n in workspace.index_names() if n != name])
    return problem.replace("the new index", "the index") if problem else None


def rename_index(workspace: Any, name: str, typed: str) -> str:
    """Rename index ``name`` to the name ``typed``; returns its folder name afterwards.

    The folder moves only when the safe form of the name changes; the journal's finished jobs
    of the index follow it. Refused while a job runs on the index (it writes to the folder)."""
    from .jobs import JobJournal

    problem = rename_problem(workspace, name, typed)
    if problem:
        raise WorkspaceError(f"cannot rename index {name!r} to {typed!r}: {problem}")
    journal = JobJournal(workspace.root / "jobs")
    jobs = [j for j in journal.all() if j.index == name]
    if any(j.active and j.owner_alive() for j in jobs):
        raise WorkspaceError(f"a job is running on index {name!r}: rename it when the job is "
                             "finished, or cancel the job first")
    folder = folder_name(typed)
    folder = name if folder.lower() == name.lower() else folder
    if folder != name:
        workspace.rename_index(name, folder)
    display = clean_display(typed)
    workspace.save_record(folder, replace(workspace.record(folder), display_name=display))
    for job in jobs:
        journal.save(replace(job, index=folder, index_display=display))
    return folder


def resolve_index(workspace: Any, typed: str) -> str:
    """The folder of the index named ``typed`` (its folder or shown name, any case), else the
    folder a new index of that name gets."""
    if NAME_PATTERN.match(typed) and workspace.has_index(typed):
        return typed
    wanted = clean_display(typed).casefold()
    for name in workspace.index_names():
        if display_name(workspace, name).casefold() == wanted:
            return name
    folder = folder_name(typed)
    if not folder:
        raise WorkspaceError(f"index name {typed!r}: {name_problem(typed, [])}")
    return folder
