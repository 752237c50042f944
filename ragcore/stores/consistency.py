"""Keeping a database-backed store and an index's docstore in step across crashes.

A store whose rows live in a database (Chroma, Postgres) changes the moment ``add`` or
``delete`` returns, while the index folder (the docstore) changes when the index is persisted.
A process that dies between the two leaves them apart: rows no node record names (orphans: an
ingest died before its persist) or node records without a row (missing: a delete died before
its persist). Such a store lists its ids (``ids()``), so both sides can be compared; the count
is compared first, and the ids only when the counts differ, so a healthy index pays one count.

``check_rows`` runs at load, which may be a reader beside a live writer, so it changes nothing
in the database: it logs what differs and hides the orphan rows from this process's searches
(``hide``). ``settle_rows`` runs at persist, under the folder's writer lock, where the docstore
being written is the truth: it deletes orphan rows and returns the missing node ids, which the
index then drops (both logged: a divergence is never silent).
"""

from __future__ import annotations

import logging
from typing import Callable, Iterable, Protocol, Sized, runtime_checkable

log = logging.getLogger(__name__)
_SHOWN = 5  # ids quoted in a log message


@runtime_checkable
class ExternalRows(Protocol):
    """A store whose rows outlive the process and can be listed."""

    def __len__(self) -> int: ...

    def ids(self) -> list[str]: ...

    def delete(self, ids: list[str]) -> int: ...

    def hide(self, ids: Iterable[str]) -> None: ...


def _counted(items: Sized, noun: str) -> str:
    """'1 row', '2 rows': a log line's count, never 'row(s)'."""
    return f"{len(items)} {noun}{'' if len(items) == 1 else 's'}"


def _sample(ids: list[str]) -> str:
    more = f" and {len(ids) - _SHOWN} more" if len(ids) > _SHOWN else ""
    return ", ".join(repr(i) for i in ids[:_SHOWN]) + more


def difference(store: ExternalRows, node_ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """(orphans: rows no node names, missing: nodes without a row), each sorted."""
    rows, nodes = set(store.ids()), set(node_ids)
    return sorted(rows - nodes), sorted(nodes - rows)


def check_rows(store: object, node_ids: Callable[[], Iterable[str]], nodes: int,
               *, where: object) -> bool:
    """At load: whether ``store`` is external and differs from the ``nodes`` node records
    (``node_ids`` lists them); differences are logged and orphan rows hidden, nothing deleted."""
    if not isinstance(store, ExternalRows) or len(store) == nodes:
        return False
    orphans, missing = difference(store, node_ids())
    if not orphans and not missing:
        return False
    if orphans:
        store.hide(orphans)
        log.warning(
            "%s: the %s holds %s no node of the index names (%s), left by a change that "
            "stopped before the index was saved (or one being written now); they are left out "
            "of searches and deleted when the index is next saved", where, type(store).__name__,
            _counted(orphans, "row"), _sample(orphans))
    if missing:
        log.warning(
            "%s: %s of the index without a row in the %s (%s): a delete stopped before "
            "the index was saved; they cannot be found by meaning and are dropped from the "
            "index when it is next saved: ingest their files again", where,
            _counted(missing, "node"), type(store).__name__, _sample(missing))
    return True


def settle_rows(store: object, node_ids: Callable[[], Iterable[str]], nodes: int,
                *, where: object) -> list[str]:
    """At persist: delete ``store``'s orphan rows and return the node ids it has no row for."""
    if not isinstance(store, ExternalRows) or len(store) == nodes:
        return []
    orphans, missing = difference(store, node_ids())
    if orphans:
        store.delete(orphans)
        log.warning("%s: deleted %s from the %s (%s)", where, _counted(orphans, "orphan row"),
                    type(store).__name__, _sample(orphans))
    if missing:
        log.warning("%s: dropped %s without a row in the %s (%s): ingest their files "
                    "again", where, _counted(missing, "node"), type(store).__name__,
                    _sample(missing))
    return missing
