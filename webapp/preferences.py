"""The app's choices that outlive a session, kept in the workspace (``app-preferences.json``).

One small JSON object: ``advanced`` (the Advanced switch, ``advanced.py``) and ``last_index``
(the index last worked on, which a new session starts with: ``state.selected_index``). Each
write keeps the other keys; an unreadable file counts as empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragcore.errors import WorkspaceError
from ragcore.workspace.files import read_json, write_json_atomic

PREFERENCES = "app-preferences.json"


def load(root: Path) -> dict[str, Any]:
    """The saved choices of the workspace at ``root`` ({} if none or unreadable)."""
    path = Path(root) / PREFERENCES
    if not path.exists():
        return {}
    try:
        data = read_json(path, what="app preferences")
    except WorkspaceError:
        return {}
    return data if isinstance(data, dict) else {}


def save(root: Path, **changes: Any) -> None:
    """Change some choices, keeping the others."""
    write_json_atomic(Path(root) / PREFERENCES, {**load(root), **changes})
