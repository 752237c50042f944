"""CliContext: what every command gets from the top-level options (kept apart from the parser,
so the command modules can name it without importing the package that imports them)."""

from __future__ import annotations

from dataclasses import dataclass

from ..embeddings.base import Embedder


@dataclass(slots=True)
class CliContext:
    """What every command needs: the workspace root and an optional embedder override."""

    workspace_root: str | None
    embedder: Embedder | None

    def workspace(self):
        from ..workspace import Workspace

        return Workspace(self.workspace_root, embedder=self.embedder)
