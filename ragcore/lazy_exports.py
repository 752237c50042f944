"""Lazy package exports (PEP 562): a public name is imported from its module on first use.

``ragcore`` and its ``llms`` and ``embeddings`` packages export names whose modules are slow to
import (httpx, torch). Each declares a table of name -> module and takes its module-level
``__getattr__`` and ``__dir__`` from ``lazy_exports``, so the mechanism is written once.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, Mapping


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any], public: Iterable[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``; module names may be relative (".x")."""
    public = tuple(public)

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
