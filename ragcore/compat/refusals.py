"""How a compat adapter refuses a LlamaIndex keyword: by name, with ragcore's equivalent.

A keyword whose meaning ragcore shares is translated by the adapter; one whose meaning differs
(or that ragcore has no use for) must not be dropped silently, so each adapter lists those it
knows with a hint, and any other unexpected keyword is a TypeError, as in any Python call.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..errors import ConfigError


def refuse(call: str, options: Mapping[str, Any], hints: Mapping[str, str]) -> None:
    """Raise for the first of ``options`` (all of them unsupported by ``call``)."""
    if not options:
        return
    known = sorted(name for name in options if name in hints)
    if known:
        name = known[0]
        raise ConfigError(f"{call} does not take {name}= in ragcore: {hints[name]}")
    raise TypeError(f"{call} got unexpected keyword arguments: {', '.join(sorted(options))}")
