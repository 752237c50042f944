"""Registry: named entries of one kind (LLM backends, embedding backends, vector stores).

Each extension point keeps one ``Registry``: ``ragcore.llms.registry``, ``ragcore.embeddings.
registry`` and ``ragcore.stores.registry``. The built-in entries register themselves when that
module is imported; a backend or store written elsewhere (a plugin, a test suite) calls
``register`` once and then appears wherever the choices are listed (the CLI, the app's Settings
page, ``VectorStoreIndex.load`` for a manifest naming it). Entries are plain objects; the registry
only names them, so it has no opinion on what an entry holds.
"""

from __future__ import annotations

from typing import Generic, Iterator, TypeVar

from .errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries of one kind by name, in registration order."""

    def __init__(self, kind: str) -> None:
        self.kind = kind  # what an entry is, for messages: "LLM backend", "vector store"
        self._entries: dict[str, T] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._entries.values()))

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {self.names()})"

    def names(self) -> list[str]:
        return list(self._entries)

    def register(self, name: str, entry: T, *, replace: bool = False) -> T:
        """Add ``entry`` under ``name``; a name already taken is refused unless ``replace``."""
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise ConfigError(f"a {self.kind} name must be a non-empty word, got {name!r}")
        if name in self._entries and not replace:
            raise ConfigError(
                f"a {self.kind} named {name!r} is already registered: pick another name, or "
                "pass replace=True to override it"
            )
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Remove an entry (tests use it to clean up); unknown names are ignored."""
        self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The entry named ``name``; ConfigError listing the choices when there is none."""
        try:
            return self._entries[name]
        except (KeyError, TypeError):
            choices = ", ".join(self._entries) or "none registered"
            raise ConfigError(f"unknown {self.kind} {name!r}: choose one of {choices}") from None
