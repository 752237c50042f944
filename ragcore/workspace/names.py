"""Index names as people type them ("Dossiers été 2024") over safe folder names.

An index lives in a folder whose name follows ``files.NAME_RULE`` (ASCII letters, digits, '-'
and '_'), so it is safe on every file system and in URLs. People name things with spaces and
accents: ``folder_name`` turns such a display name into a folder name (accents dropped, other
runs of characters made '-'), ``name_problem`` says in plain words why a typed name cannot be
used (or None), and the display name is kept in the index's record (``IndexRecord.display_name``),
shown wherever the index is listed (``display_name``).
"""

from __future__ import annotations

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
    return slug if NAME_PATTERN.match(slug) else ""


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
